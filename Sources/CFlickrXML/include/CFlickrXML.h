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

/* Where fx_record hands its chunks: `put` gets each chunk (malloc'd; the receiver frees it) once
 * it is full, `last` set for the final one, which ends in a done or fail record. */
typedef struct fx_tape_sink {
    void (*put)(void *ctx, unsigned char *chunk, size_t count, int last);
    void *ctx;
} fx_tape_sink;

/* Parses len bytes as fx_parse does, writing its events on a tape (the record layout is in
 * tape.c; FlickrXMLTape replays it) handed to `sink` in chunks: the first once it holds
 * first_chunk bytes, then every chunk bytes until the end nears, where each takes half of what
 * is left of the document (never less than first_chunk). Returns 0, or -1 when the document
 * failed (the tape then ends with the fail record, message and line). */
int fx_record(const char *bytes, size_t len, const fx_tape_sink *sink, size_t first_chunk, size_t chunk);

/* The CPU the calling thread runs on, or -1 when unknown (Linux; -1 elsewhere). */
int fx_current_cpu(void);

/* Keeps the calling thread off CPU `cpu`: its affinity becomes the process's CPUs but that one.
 * Nothing for -1, when `cpu` is the only one allowed, or where affinity cannot be set (not Linux). */
void fx_avoid_cpu(int cpu);

#endif
