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
    /* If not NULL: set before each start_element to the parser's offset in the document (its
     * start tag's end), for a handler that wants to know how much is left. */
    size_t *reached;
} fx_handlers;

/* Parses len bytes. Returns 0 on success; otherwise writes a message (and line) and returns -1.
 * A handler may stop the parse with fx_stop(). */
int fx_parse(const char *bytes, size_t len, const fx_handlers *handlers, void *ctx,
             char *error, size_t error_len, int *error_line);

/* A document cut in two, each part parsed by a thread of its own: the first part is parsed
 * from the start and stops at `offset`, a '<' opening a start tag, when the parser finds there
 * the open elements `names` (`depth` of them, outermost first, each NUL-terminated), no
 * namespace in scope and no transcoding, and the other part — `names` as bare start tags, then
 * the document from `offset` — parsed (`*verdict` 1; 2 when it failed; 0 until it is known,
 * which the first part waits for). Otherwise the first part is parsed to the end as usual.
 * `waited_ns`, when not NULL, gets the nanoseconds the first part waited for the verdict: its
 * parse's own time is the rest (FlickrXMLTape learns each thread's speed from them). */
typedef struct fx_split {
    size_t offset;
    const char *names;
    int depth;
    int *verdict;
    long long *waited_ns;
} fx_split;

/* fx_parse with a split: returns 1 when it stopped at the split (no event from `offset` on). */
int fx_parse_split(const char *bytes, size_t len, const fx_split *split, const fx_handlers *handlers, void *ctx,
                   char *error, size_t error_len, int *error_line);

/* A place to cut a document: the first start tag at or past `target`, and the elements open
 * there as the tags before the first element of that name say (`names`: NUL-terminated names
 * in at most names_cap bytes). 0 when none is found near (a CDATA section, a DOCTYPE or a
 * namespace declaration before it gives none). The first part's parser checks the guess. */
int fx_find_split(const char *bytes, size_t len, size_t target, size_t *offset, char *names, size_t names_cap, int *depth);

/* Gives the other part's verdict (1 parsed, 2 failed) to a first part waiting for it. */
void fx_set_verdict(int *verdict, int value);

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

/* fx_record of a document's first part (fx_split): returns 1 when the parse stopped at the split,
 * the tape then ending with a split record. */
int fx_record_split(const char *bytes, size_t len, const fx_split *split, const fx_tape_sink *sink,
                    size_t first_chunk, size_t chunk);

/* The CPU the calling thread runs on, or -1 when unknown (Linux; -1 elsewhere). */
int fx_current_cpu(void);

/* Keeps the calling thread off CPU `cpu`: its affinity becomes the process's CPUs but that one.
 * Nothing for -1, when `cpu` is the only one allowed, or where affinity cannot be set (not Linux). */
void fx_avoid_cpu(int cpu);

#endif
