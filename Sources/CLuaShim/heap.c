/* A small-block heap for one Lua state (see CLuaShim.h, lk_heap).
 *
 * Lua tells its allocator the size of every block it frees or resizes, so blocks of up to
 * LK_SMALL bytes need no header: they are carved from 256 KiB chunks in 16-byte size classes
 * and recycled through one free list per class. Larger blocks go to malloc. Lua uses a state
 * from one thread at a time, so nothing here locks. A chunk goes back to the system when the
 * heap is freed, after lua_close, or when lk_heap_release finds every block carved from it
 * free (after a full collection). */
#include "CLuaShim.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LK_CLASS 16                       /* size class granularity; also the alignment */
#define LK_SMALL 1024                     /* largest block served from the classes */
#define LK_CLASSES (LK_SMALL / LK_CLASS)
#define LK_CHUNK (256 * 1024)

typedef struct lk_chunk {
    struct lk_chunk *next;
    size_t used;                          /* bytes carved from it (set when it stops being the newest) */
    max_align_t pad;                      /* keeps the blocks after the header aligned */
} lk_chunk;

struct lk_heap {
    void *free[LK_CLASSES + 1];           /* free lists, by class 1...LK_CLASSES */
    char *bump, *end;                     /* what is left of the newest chunk */
    lk_chunk *chunks;
};

lk_heap *lk_heap_new(void) {
    return calloc(1, sizeof(lk_heap));
}

void lk_heap_free(lk_heap *h) {
    if (h == NULL) return;
    while (h->chunks) {
        lk_chunk *next = h->chunks->next;
        free(h->chunks);
        h->chunks = next;
    }
    free(h);
}

size_t lk_heap_size(const lk_heap *h) {
    size_t n = 0;
    for (const lk_chunk *c = h ? h->chunks : NULL; c; c = c->next) n += LK_CHUNK;
    return n;
}

static size_t lk_class_of(size_t size) { return (size + LK_CLASS - 1) / LK_CLASS; }

/* A block of class c, or NULL when memory is out. */
static void *lk_take(lk_heap *h, size_t c) {
    void *p = h->free[c];
    if (p) {
        memcpy(&h->free[c], p, sizeof p);
        return p;
    }
    size_t size = c * LK_CLASS;
    if ((size_t)(h->end - h->bump) < size) {
        lk_chunk *chunk = malloc(LK_CHUNK);
        if (chunk == NULL) return NULL;
        if (h->chunks) h->chunks->used = (size_t)(h->bump - (char *)(h->chunks + 1));
        chunk->next = h->chunks;
        chunk->used = 0;
        h->chunks = chunk;
        h->bump = (char *)(chunk + 1);
        h->end = (char *)chunk + LK_CHUNK;
    }
    p = h->bump;
    h->bump += size;
    return p;
}

/* Gives back a block Lua says has `size` bytes. */
static void lk_give(lk_heap *h, void *p, size_t size) {
    if (size > LK_SMALL) {
        free(p);
        return;
    }
    size_t c = lk_class_of(size);
    memcpy(p, &h->free[c], sizeof p);
    h->free[c] = p;
}

void *lk_heap_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    lk_heap *h = ud;
    if (ptr == NULL) osize = 0;           /* then osize only tags the kind of object */
    if (nsize == 0) {
        if (ptr) lk_give(h, ptr, osize);
        return NULL;
    }
    if (ptr && osize > LK_SMALL && nsize > LK_SMALL) return realloc(ptr, nsize);
    if (ptr && osize <= LK_SMALL && nsize <= LK_SMALL && lk_class_of(osize) == lk_class_of(nsize)) return ptr;
    void *q = nsize <= LK_SMALL ? lk_take(h, lk_class_of(nsize)) : malloc(nsize);
    if (q == NULL) {
        /* Lua counts on a shrink never failing: keep the larger block. Its later free names the
         * smaller size, so it joins a smaller class (or, from malloc, stays out of use): safe. */
        return (ptr && nsize <= osize) ? ptr : NULL;
    }
    if (ptr) {
        memcpy(q, ptr, osize < nsize ? osize : nsize);
        lk_give(h, ptr, osize);
    }
    return q;
}

/* ---- Giving whole chunks back ------------------------------------------------------------- */

/* Chunks by address, for finding the one a block was carved from. */
static int lk_by_address(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)*(lk_chunk *const *)a, y = (uintptr_t)*(lk_chunk *const *)b;
    return x < y ? -1 : x > y;
}

/* The index in `sorted` (n chunks by address) of the chunk holding p; -1 if none does. */
static long lk_chunk_of(lk_chunk **sorted, long n, const void *p) {
    long lo = 0, hi = n - 1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        const char *start = (const char *)sorted[mid];
        if ((const char *)p < start) hi = mid - 1;
        else if ((const char *)p >= start + LK_CHUNK) lo = mid + 1;
        else return mid;
    }
    return -1;
}

/* Why this is needed: blocks of a class are reused only by that class, so a chunk stays
 * resident as long as the heap lives, even when a burst of tables (a batch of answers) has
 * long been collected. A chunk can go once the free lists hold every byte carved from it: the
 * free bytes of each chunk are summed over the free lists, and the lists are then rebuilt
 * without the blocks of the chunks that go. The newest chunk (still being carved) stays.
 * Cost: two walks of the free lists; meant for after a full collection, not for every free. */
size_t lk_heap_release(lk_heap *h) {
    if (h == NULL || h->chunks == NULL || h->chunks->next == NULL) return 0;
    long n = 0;
    for (lk_chunk *c = h->chunks->next; c; c = c->next) n++;
    lk_chunk **sorted = malloc(sizeof(lk_chunk *) * (size_t)n);
    size_t *unused = calloc((size_t)n, sizeof(size_t));
    if (sorted == NULL || unused == NULL) {
        free(sorted);
        free(unused);
        return 0;                         /* nothing is lost: the chunks simply stay */
    }
    long i = 0;
    for (lk_chunk *c = h->chunks->next; c; c = c->next) sorted[i++] = c;
    qsort(sorted, (size_t)n, sizeof *sorted, lk_by_address);
    for (size_t c = 1; c <= LK_CLASSES; c++) {
        for (void *p = h->free[c]; p; memcpy(&p, p, sizeof p)) {
            long k = lk_chunk_of(sorted, n, p);
            if (k >= 0) unused[k] += c * LK_CLASS;
        }
    }
    long going = 0;
    for (long k = 0; k < n; k++) {
        if (unused[k] == sorted[k]->used) going++;
        else sorted[k] = NULL;            /* stays: out of the search from here on */
    }
    size_t released = 0;
    if (going > 0) {
        /* Rebuild the lists without the blocks of the chunks that go (order kept). */
        long m = 0;
        for (long k = 0; k < n; k++) if (sorted[k]) sorted[m++] = sorted[k];
        for (size_t c = 1; c <= LK_CLASSES; c++) {
            void *head = NULL, *tail = NULL, *next;
            for (void *p = h->free[c]; p; p = next) {
                memcpy(&next, p, sizeof next);
                if (lk_chunk_of(sorted, m, p) >= 0) continue;
                if (tail) memcpy(tail, &p, sizeof p); else head = p;
                tail = p;
            }
            if (tail) memset(tail, 0, sizeof(void *));
            h->free[c] = head;
        }
        /* Unlink and free them (the newest chunk, h->chunks, never goes). */
        for (lk_chunk **link = &h->chunks->next; *link;) {
            lk_chunk *c = *link;
            if (lk_chunk_of(sorted, m, c + 1) >= 0) {
                *link = c->next;
                free(c);
                released += LK_CHUNK;
            } else {
                link = &c->next;
            }
        }
    }
    free(sorted);
    free(unused);
    return released;
}
