#ifndef CFLICKRCATALOG_H
#define CFLICKRCATALOG_H
/*
 * The method catalog, compiled into every binary that links FlickrProtocol.
 *
 * Why C: `#embed` (C23, in the toolchain's clang) turns data/catalog.json, data/examples.json and names.txt
 * into constant arrays at build time, so an installed `flickr` needs no resource bundle, and the
 * compiler's dependency file names the JSON so an edit rebuilds this target. The files are
 * written by scripts/build-catalog.py from the recorded Flickr material in Tests/Fixtures.
 */
#include <stddef.h>

/* The catalog (methods, arguments, perms, errors) as UTF-8 JSON; *length receives its size. */
const unsigned char *flickr_catalog_json(size_t *length);

/* Flickr's documented example responses by method name, as UTF-8 JSON. */
const unsigned char *flickr_examples_json(size_t *length);

/* The method names alone, one a line (UTF-8): what start-up needs without decoding the catalog. */
const unsigned char *flickr_method_names(size_t *length);

#endif
