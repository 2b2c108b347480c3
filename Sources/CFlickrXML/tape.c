/* The parsing side of FlickrXMLTape (FlickrProtocol): libxml2's events written on a tape, in C.
 *
 * Why in C: in a two-thread mapping the parsing thread is the slower side, and libxml2 alone is
 * most of it; a call into Swift per event (and the mapping rules there) made it 4.2 ms of a
 * 1.1 MB list against libxml2's bare 3.45. Here it only records — names as tokens, values as
 * libxml2 gave them — and the thread that replays the tape applies the rules.
 *
 * Record layout (int32 in native byte order, unaligned; a record never spans chunks), which
 * FlickrXMLTape.Replay reads:
 *   name:  1, length, bytes                                  a name first seen; tokens from 0
 *   begin: 2, element, count, count x (name, length, bytes)  an element opens
 *   text:  3, length, bytes                                  a piece of the open element's text
 *   end:   4                                                 the open element closes
 *   done:  5                                                 the document ended well
 *   fail:  6, line (0 or less: unknown), length, message     it did not
 *   split: 7                                                 the first part ended at the split
 */
#include "CFlickrXML.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { OP_NAME = 1, OP_BEGIN, OP_TEXT, OP_END, OP_DONE, OP_FAIL, OP_SPLIT };

typedef struct fx_recorder {
    const fx_tape_sink *sink;
    unsigned char *base;            /* the chunk being written */
    size_t used, capacity;
    size_t hand_over;               /* the fill at which it goes over */
    size_t chunk;                   /* the size of the chunks after the first (at most) */
    size_t first;                   /* the first chunk's size, and the least of any after it */
    size_t length;                  /* the document's bytes */
    size_t recorded;                /* the tape's bytes handed over so far */
    size_t reached;                 /* how far into the document the parser is (fx_handlers.reached) */
    /* Interned name pointer -> token (libxml2 gives a name the same pointer for the whole
       parse): open addressing, linear probing, grown at three quarters full. */
    const char **keys;
    int32_t *tokens;
    size_t slots, filled;
    int32_t names;
} fx_recorder;

/* Memory runs out: as Swift's allocations do, stop the process rather than lose the tape. */
static void *fx_alloc(size_t n) {
    void *p = malloc(n);
    if (!p) abort();
    return p;
}

/* Room for n more bytes in the chunk (a record larger than a chunk gets a larger one). */
static void fx_reserve(fx_recorder *r, size_t n) {
    if (r->used + n <= r->capacity) return;
    size_t capacity = r->capacity * 2 > r->used + n ? r->capacity * 2 : r->used + n;
    unsigned char *grown = fx_alloc(capacity);
    memcpy(grown, r->base, r->used);
    free(r->base);
    r->base = grown;
    r->capacity = capacity;
}

static void fx_put_byte(fx_recorder *r, unsigned char b) {
    fx_reserve(r, 1);
    r->base[r->used++] = b;
}

static void fx_put_int(fx_recorder *r, int32_t v) {
    fx_reserve(r, 4);
    memcpy(r->base + r->used, &v, 4);
    r->used += 4;
}

static void fx_put_bytes(fx_recorder *r, const void *bytes, size_t n) {
    fx_put_int(r, (int32_t)n);
    fx_reserve(r, n);
    if (n) memcpy(r->base + r->used, bytes, n);
    r->used += n;
}

/* The fill at which the next chunk goes over: the full chunk size while much of the document is
   left, then half of what is left (not less than the first chunk), so that the last chunk — the
   part the replaying thread still has to replay once parsing is over — is small: a 190 kB page
   ended on a chunk of ~50 kB, which the building thread replayed alone. What is left is counted
   from how far the parse has reached in the document. A tape is smaller than the XML it records
   (a name becomes a 4-byte token, quotes and `=` a length): counted from the tape's bytes, as
   this did first, the 1.1 MB list looked 15 % from its end when it was at it, its last chunk was
   37 kB after full ones, and the building thread replayed ~230 us alone after the parse ended.
   The parser keeps `reached` (fx_handlers); the tape's bytes count if they are more. */
static size_t fx_next_hand_over(const fx_recorder *r) {
    size_t done = r->reached > r->recorded ? r->reached : r->recorded;
    size_t left = r->length > done ? r->length - done : 0;
    size_t half = left / 2;
    if (half >= r->chunk) return r->chunk;
    return half > r->first ? half : r->first;
}

/* Hands the chunk over when it is full (or at the end), then starts a new one. */
static void fx_record_done(fx_recorder *r, int last) {
    if (!last && r->used < r->hand_over) return;
    r->recorded += r->used;
    r->sink->put(r->sink->ctx, r->base, r->used, last);
    r->base = last ? NULL : fx_alloc(r->chunk);
    r->used = 0;
    r->capacity = r->chunk;
    r->hand_over = fx_next_hand_over(r);
}

static size_t fx_slot_of(const fx_recorder *r, const char *p) {
    return (size_t)(((uintptr_t)p * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (r->slots - 1);
}

/* An empty table of `slots` names (a power of two). */
static void fx_alloc_names(fx_recorder *r, size_t slots) {
    r->slots = slots;
    r->keys = calloc(slots, sizeof *r->keys);
    if (!r->keys) abort();
    r->tokens = fx_alloc(slots * sizeof *r->tokens);
}

static void fx_grow_names(fx_recorder *r) {
    const char **keys = r->keys;
    int32_t *tokens = r->tokens;
    size_t slots = r->slots;
    fx_alloc_names(r, slots * 2);
    for (size_t i = 0; i < slots; i++) {
        if (!keys[i]) continue;
        size_t j = fx_slot_of(r, keys[i]);
        while (r->keys[j]) j = (j + 1) & (r->slots - 1);
        r->keys[j] = keys[i];
        r->tokens[j] = tokens[i];
    }
    free(keys);
    free(tokens);
}

/* The token of an interned name, recording the name the first time. */
static int32_t fx_token(fx_recorder *r, const char *p) {
    size_t i = fx_slot_of(r, p);
    while (r->keys[i]) {
        if (r->keys[i] == p) return r->tokens[i];
        i = (i + 1) & (r->slots - 1);
    }
    fx_put_byte(r, OP_NAME);
    fx_put_bytes(r, p, strlen(p));
    fx_record_done(r, 0);
    int32_t token = r->names++;
    r->keys[i] = p;
    r->tokens[i] = token;
    if (++r->filled * 4 >= r->slots * 3) fx_grow_names(r);
    return token;
}

/* One reservation per element, then plain stores. attrs: nattrs x (name, value start, end). */
static void fx_record_start(void *ctx, const char *name, int nattrs, const char **attrs) {
    fx_recorder *r = ctx;
    int32_t element = fx_token(r, name);
    int32_t small[64];
    int32_t *tokens = nattrs <= 64 ? small : fx_alloc(sizeof(int32_t) * (size_t)nattrs);
    size_t size = 9;
    for (int i = 0; i < nattrs; i++) {
        /* libxml2 always names an attribute; -1 would mark one without a name. */
        tokens[i] = attrs[3 * i] ? fx_token(r, attrs[3 * i]) : -1;
        size += 8 + (size_t)(attrs[3 * i + 2] - attrs[3 * i + 1]);
    }
    fx_reserve(r, size);
    unsigned char *at = r->base + r->used;
    int32_t count = nattrs;
    *at = OP_BEGIN;
    memcpy(at + 1, &element, 4);
    memcpy(at + 5, &count, 4);
    at += 9;
    for (int i = 0; i < nattrs; i++) {
        int32_t length = (int32_t)(attrs[3 * i + 2] - attrs[3 * i + 1]);
        memcpy(at, &tokens[i], 4);
        memcpy(at + 4, &length, 4);
        if (length) memcpy(at + 8, attrs[3 * i + 1], (size_t)length);
        at += 8 + (size_t)length;
    }
    r->used += size;
    if (tokens != small) free(tokens);
    fx_record_done(r, 0);
}

static void fx_record_end(void *ctx) {
    fx_recorder *r = ctx;
    fx_put_byte(r, OP_END);
    fx_record_done(r, 0);
}

static void fx_record_text(void *ctx, const char *text, int len) {
    fx_recorder *r = ctx;
    fx_put_byte(r, OP_TEXT);
    fx_put_bytes(r, text, (size_t)len);
    fx_record_done(r, 0);
}

int fx_record(const char *bytes, size_t len, const fx_tape_sink *sink, size_t first_chunk, size_t chunk) {
    return fx_record_split(bytes, len, NULL, sink, first_chunk, chunk);
}

int fx_record_split(const char *bytes, size_t len, const fx_split *split, const fx_tape_sink *sink,
                    size_t first_chunk, size_t chunk) {
    fx_recorder r = { .sink = sink, .base = fx_alloc(chunk), .capacity = chunk, .hand_over = first_chunk,
                      .chunk = chunk, .first = first_chunk, .length = split ? split->offset : len };
    fx_alloc_names(&r, 256);
    const fx_handlers handlers = { fx_record_start, fx_record_end, fx_record_text, &r.reached };
    char message[256] = { 0 };
    int line = 0;
    int rc = len ? fx_parse_split(bytes, len, split, &handlers, &r, message, sizeof message, &line) : -1;
    if (rc == 1) {
        fx_put_byte(&r, OP_SPLIT);
    } else if (rc == 0) {
        fx_put_byte(&r, OP_DONE);
    } else {
        if (!len) strcpy(message, "empty document");
        /* As fx_parse reported it: FlickrXMLParser.failure reads both as parse() does. */
        fx_put_byte(&r, OP_FAIL);
        fx_put_int(&r, line);
        fx_put_bytes(&r, message, strlen(message));
    }
    fx_record_done(&r, 1);
    free(r.keys);
    free(r.tokens);
    return rc;
}
