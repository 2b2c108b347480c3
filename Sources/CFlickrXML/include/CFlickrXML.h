#ifndef CFLICKRXML_H
#define CFLICKRXML_H
/*
 * A narrow C face of libxml2's SAX2 push parser for FlickrProtocol.
 *
 * Why C: libxml2's headers pull in the system ICU headers, which clash with Foundation's copy of
 * ICU when both are imported into one Swift module. This header names no libxml2 type, so Swift
 * sees only what it needs.
 *
 * Safety settings are fixed here: entity substitution off, network off, any DOCTYPE refused
 * (so no external entity is ever resolved and no entity expansion bomb can start).
 */
#include <stddef.h>

typedef struct fx_handlers {
    /* attrs holds nattrs entries of 3 pointers: name (NUL-terminated), value start, value end. */
    void (*start_element)(void *ctx, const char *name, int nattrs, const char **attrs);
    void (*end_element)(void *ctx);
    void (*characters)(void *ctx, const char *text, int len);
} fx_handlers;

/* Parses len bytes. Returns 0 on success; otherwise writes a message (and line) and returns -1.
 * A handler may stop the parse with fx_stop(). */
int fx_parse(const char *bytes, size_t len, const fx_handlers *handlers, void *ctx,
             char *error, size_t error_len, int *error_line);

#endif
