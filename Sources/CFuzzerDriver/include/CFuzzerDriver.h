/* libFuzzer's driver entry, for flickr-fuzz (scripts/fuzz links libFuzzer with
 * -sanitize=fuzzer; a normal build never calls it, so nothing needs it at link time). */
#ifndef CFUZZERDRIVER_H
#define CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
