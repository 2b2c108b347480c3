/* A small-block heap for one Lua state (see CLuaShim.h, lk_heap).
 *
 * Lua tells its allocator the size of every block it frees or resizes, so blocks of up to
 * LK_SMALL bytes need no header: they are carved from 256 KiB chunks in 16-byte size classes
 * and recycled through one free list per class. Larger blocks go to malloc. Lua uses a state
 * from one thread at a time, so nothing here locks. Chunks go back to the system only when the
 * heap is freed, after lua_close. */
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
        chunk->next = h->chunks;
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
