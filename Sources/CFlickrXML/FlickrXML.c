#define _GNU_SOURCE /* sched_getcpu, CPU_*, memmem */
#include <sched.h>
#include "CFlickrXML.h"

#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

/* Per-parse state: the Swift handlers and the first error seen; with a split, whether the
   parser stopped at it. */
typedef struct fx_state {
    const fx_handlers *handlers;
    void *ctx;
    xmlParserCtxtPtr parser;
    char *error;
    size_t error_len;
    int *error_line;
    int failed;
    const fx_split *split;
    int split_checked;
    int split_taken;
} fx_state;

static void fx_fail(fx_state *s, const char *message, int line) {
    if (!s->failed) {
        s->failed = 1;
        if (s->error && s->error_len) {
            strncpy(s->error, message, s->error_len - 1);
            s->error[s->error_len - 1] = 0;
            /* libxml2 messages end with a newline. */
            size_t n = strlen(s->error);
            while (n > 0 && (s->error[n - 1] == '\n' || s->error[n - 1] == ' ')) s->error[--n] = 0;
        }
        if (s->error_line) *s->error_line = line;
    }
    if (s->parser) xmlStopParser(s->parser);
}

/* Whether the open elements are the split's, by name and in order, with no namespace in
   scope, no entity being read and no transcoding: then what follows parses the same after the
   split's synthetic start tags. */
static int fx_split_context_matches(const fx_state *s) {
    xmlParserCtxtPtr p = s->parser;
    if (p->nameNr != s->split->depth || p->nsNr != 0 || p->inputNr != 1 || !p->wellFormed) return 0;
    if (p->input->buf && p->input->buf->encoder) return 0;
    const char *name = s->split->names;
    for (int i = 0; i < p->nameNr; i++) {
        if (strcmp((const char *)p->nameTab[i], name) != 0) return 0;
        name += strlen(name) + 1;
    }
    return 1;
}

static long long fx_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The other part's verdict, once it is given (it always is: that part's parse ends); the time
   waited for it goes to split->waited_ns. */
static int fx_wait_verdict(const fx_split *split) {
    int v = __atomic_load_n(split->verdict, __ATOMIC_ACQUIRE);
    if (v != 0) return v;
    long long start = fx_now_ns();
    while ((v = __atomic_load_n(split->verdict, __ATOMIC_ACQUIRE)) == 0) sched_yield();
    if (split->waited_ns) *split->waited_ns = fx_now_ns() - start;
    return v;
}

/* At the first start tag past the split's offset: stop there when it is the one at the offset
   and everything checks (the tape then ends with a split record); else parse on to the end.
   The tag's '<' is the last one before the parser's position: none can be inside a tag. */
static int fx_stop_at_split(fx_state *s) {
    xmlParserInputPtr in = s->parser->input;
    size_t at = (size_t)(in->cur - in->base) + (size_t)in->consumed;
    if (at <= s->split->offset) return 0;
    s->split_checked = 1;
    const xmlChar *p = in->cur;
    while (p > in->base && *p != '<') p--;
    if (*p != '<' || (size_t)(p - in->base) + (size_t)in->consumed != s->split->offset) return 0;
    if (!fx_split_context_matches(s) || fx_wait_verdict(s->split) != 1) return 0;
    s->split_taken = 1;
    xmlStopParser(s->parser);
    return 1;
}

static void fx_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                     int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
                     const xmlChar **attributes) {
    (void)prefix; (void)uri; (void)nb_namespaces; (void)namespaces; (void)nb_defaulted;
    fx_state *s = ctx;
    if (s->failed || s->split_taken) return;
    if (s->split && !s->split_checked && fx_stop_at_split(s)) return;
    /* libxml2 gives 5 pointers per attribute (localname, prefix, URI, value, end); pass 3. */
    const char *small[3 * 32];
    const char **attrs = small;
    const char **heap = NULL;
    if (nb_attributes > 32) {
        heap = (const char **)xmlMalloc(sizeof(char *) * 3 * (size_t)nb_attributes);
        if (!heap) { fx_fail(s, "out of memory", 0); return; }
        attrs = heap;
    }
    for (int i = 0; i < nb_attributes; i++) {
        attrs[3 * i] = (const char *)attributes[5 * i];
        attrs[3 * i + 1] = (const char *)attributes[5 * i + 3];
        attrs[3 * i + 2] = (const char *)attributes[5 * i + 4];
    }
    if (s->handlers->reached) {
        xmlParserInputPtr in = s->parser->input;
        *s->handlers->reached = (size_t)in->consumed + (size_t)(in->cur - in->base);
    }
    s->handlers->start_element(s->ctx, (const char *)localname, nb_attributes, attrs);
    if (heap) xmlFree(heap);
}

static void fx_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
    (void)localname; (void)prefix; (void)uri;
    fx_state *s = ctx;
    if (!s->failed && !s->split_taken) s->handlers->end_element(s->ctx);
}

static void fx_characters(void *ctx, const xmlChar *ch, int len) {
    fx_state *s = ctx;
    if (!s->failed && !s->split_taken && len > 0) s->handlers->characters(s->ctx, (const char *)ch, len);
}

static void fx_internal_subset(void *ctx, const xmlChar *name, const xmlChar *external_id,
                               const xmlChar *system_id) {
    (void)name; (void)external_id; (void)system_id;
    fx_fail(ctx, "a DOCTYPE declaration is not allowed in a Flickr response (entities are never expanded)", 0);
}

static void fx_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
                           const xmlChar *system_id, xmlChar *content) {
    (void)name; (void)type; (void)public_id; (void)system_id; (void)content;
    fx_fail(ctx, "entity declarations are not allowed", 0);
}

static void fx_structured_error(void *ctx, xmlErrorPtr err) {
    if (!ctx || !err || err->level < XML_ERR_ERROR) return;
    fx_fail(ctx, err->message ? err->message : "XML error", err->line);
}

static xmlParserInputPtr fx_refuse_loader(const char *url, const char *id, xmlParserCtxtPtr ctxt) {
    (void)url; (void)id; (void)ctxt;
    return NULL;
}

static pthread_once_t fx_once = PTHREAD_ONCE_INIT;

static void fx_initialise(void) {
    xmlInitParser();
    /* Belt and braces: even if a DTD got through, nothing external may ever be loaded. */
    xmlSetExternalEntityLoader(fx_refuse_loader);
}

int fx_parse(const char *bytes, size_t len, const fx_handlers *handlers, void *ctx,
             char *error, size_t error_len, int *error_line) {
    return fx_parse_split(bytes, len, NULL, handlers, ctx, error, error_len, error_line);
}

int fx_parse_split(const char *bytes, size_t len, const fx_split *split, const fx_handlers *handlers, void *ctx,
                   char *error, size_t error_len, int *error_line) {
    pthread_once(&fx_once, fx_initialise);
    fx_state state = { handlers, ctx, NULL, error, error_len, error_line, 0, split, 0, 0 };
    if (error_line) *error_line = 0;
    xmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = fx_start;
    sax.endElementNs = fx_end;
    sax.characters = fx_characters;
    sax.cdataBlock = fx_characters;
    sax.ignorableWhitespace = fx_characters;
    sax.internalSubset = fx_internal_subset;
    sax.entityDecl = fx_entity_decl;
    sax.serror = fx_structured_error;
    /* A document in memory is parsed in one pass over the buffer (libxml2's pull parser over a
       memory input, about 40 % faster than feeding the push parser); one past what an int can
       count goes to the push parser in pieces. */
    int rc = 0;
    xmlParserCtxtPtr parser;
    if (len <= (size_t)INT_MAX) {
        parser = xmlCreateMemoryParserCtxt(bytes, (int)len);
        if (parser) {
            xmlSAXHandlerPtr own = xmlMalloc(sizeof sax);
            if (!own) {
                xmlFreeParserCtxt(parser);
                parser = NULL;
            } else {
                memcpy(own, &sax, sizeof sax);
                if (parser->sax) xmlFree(parser->sax);
                parser->sax = own;
                parser->userData = &state;
            }
        }
    } else {
        parser = xmlCreatePushParserCtxt(&sax, &state, NULL, 0, NULL);
    }
    if (!parser) {
        fx_fail(&state, "libxml2: cannot create a parser", 0);
        return -1;
    }
    state.parser = parser;
    xmlCtxtUseOptions(parser, XML_PARSE_NONET | XML_PARSE_NOCDATA);
    if (len <= (size_t)INT_MAX) {
        rc = xmlParseDocument(parser);
    } else {
        size_t offset = 0;
        const size_t piece = 1 << 24; /* xmlParseChunk takes an int length */
        do {
            size_t n = len - offset < piece ? len - offset : piece;
            int last = offset + n == len;
            rc = xmlParseChunk(parser, bytes + offset, (int)n, last);
            offset += n;
        } while (rc == 0 && offset < len && !state.failed);
    }
    if (state.split_taken) {
        xmlFreeParserCtxt(parser);
        return 1;
    }
    int ok = rc == 0 && parser->wellFormed && !state.failed;
    if (!ok && !state.failed) fx_fail(&state, "malformed XML", 0);
    xmlFreeParserCtxt(parser);
    return ok ? 0 : -1;
}

void fx_set_verdict(int *verdict, int value) {
    __atomic_store_n(verdict, value, __ATOMIC_RELEASE);
}

static int fx_name_start(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}

static int fx_name_char(unsigned char c) {
    return fx_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

static int fx_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* The end of the name at b[i] (its first byte a name start). */
static size_t fx_name_end(const unsigned char *b, size_t len, size_t i) {
    while (i < len && fx_name_char(b[i])) i++;
    return i;
}

/* Whether the name ending at b[end] names a tag: space, '/' or '>' follows it. */
static int fx_tag_name_ends(const unsigned char *b, size_t len, size_t end) {
    return end < len && (fx_space(b[end]) || b[end] == '/' || b[end] == '>');
}

/* The position after the first `needle` at or past i, or 0. */
static size_t fx_after(const unsigned char *b, size_t len, size_t i, const char *needle) {
    size_t n = strlen(needle);
    if (i > len) return 0;
    const unsigned char *hit = memmem(b + i, len - i, needle, n);
    return hit ? (size_t)(hit - b) + n : 0;
}

int fx_find_split(const char *bytes, size_t len, size_t target, size_t *offset, char *names, size_t names_cap, int *depth) {
    const unsigned char *b = (const unsigned char *)bytes;
    /* The first start tag at or past target. */
    size_t at = target;
    for (;;) {
        if (at >= len || at - target > 65536) return 0;
        const unsigned char *lt = memchr(b + at, '<', len - at);
        if (!lt) return 0;
        at = (size_t)(lt - b);
        if (at + 1 < len && fx_name_start(b[at + 1])) break;
        at++;
    }
    size_t name_end = fx_name_end(b, len, at + 1);
    if (!fx_tag_name_ends(b, len, name_end)) return 0;
    size_t name_len = name_end - at - 1;
    /* The open elements at the first element of that name, from the tags before it: a guess the
       parser of the first part checks before it stops (fx_stop_at_split). Comments and processing
       instructions are skipped; CDATA, a DOCTYPE or a namespace declaration ends the search. */
    size_t starts[32], lengths[32];
    int open = 0;
    size_t i = 0;
    const size_t limit = at < 65536 ? at + 1 : 65536;
    for (;;) {
        const unsigned char *lt = i < limit ? memchr(b + i, '<', limit - i) : NULL;
        if (!lt) return 0;
        i = (size_t)(lt - b);
        if (i + 1 >= len) return 0;
        unsigned char c = b[i + 1];
        if (c == '?') {
            if (!(i = fx_after(b, len, i + 2, "?>"))) return 0;
            continue;
        }
        if (c == '!') {
            if (i + 3 >= len || b[i + 2] != '-' || b[i + 3] != '-' || !(i = fx_after(b, len, i + 4, "-->"))) return 0;
            continue;
        }
        if (c == '/') {
            size_t end = fx_name_end(b, len, i + 2);
            if (open == 0 || end - i - 2 != lengths[open - 1] || memcmp(b + i + 2, b + starts[open - 1], lengths[open - 1]) != 0) return 0;
            open--;
            if (!(i = fx_after(b, len, end, ">"))) return 0;
            continue;
        }
        if (!fx_name_start(c)) return 0;
        size_t start = i + 1, end = fx_name_end(b, len, start);
        if (end - start == name_len && memcmp(b + start, b + at + 1, name_len) == 0 && fx_tag_name_ends(b, len, end)) break;
        /* To the tag's end, over quoted values; a namespace declaration ends the search. */
        size_t j = end;
        while (j < len && b[j] != '>') {
            if (b[j] == '"' || b[j] == '\'') {
                const unsigned char *q = memchr(b + j + 1, b[j], len - j - 1);
                if (!q) return 0;
                j = (size_t)(q - b) + 1;
                continue;
            }
            if (b[j] == 'x' && j + 5 <= len && memcmp(b + j, "xmlns", 5) == 0) return 0;
            j++;
        }
        if (j >= len) return 0;
        if (b[j - 1] != '/') {
            if (open == 32) return 0;
            starts[open] = start;
            lengths[open] = end - start;
            open++;
        }
        i = j + 1;
    }
    size_t used = 0;
    for (int k = 0; k < open; k++) {
        if (used + lengths[k] + 1 > names_cap) return 0;
        memcpy(names + used, b + starts[k], lengths[k]);
        names[used + lengths[k]] = 0;
        used += lengths[k] + 1;
    }
    *offset = at;
    *depth = open;
    return 1;
}

int fx_current_cpu(void) {
#ifdef __linux__
    return sched_getcpu();
#else
    return -1;
#endif
}

void fx_avoid_cpu(int cpu) {
#ifdef __linux__
    if (cpu < 0 || cpu >= CPU_SETSIZE) return;
    /* From the process's CPUs (its main thread's mask), not this thread's: a parsing thread is
       reused for document after document, each time away from another caller's CPU. */
    cpu_set_t mask;
    if (sched_getaffinity(getpid(), sizeof mask, &mask) != 0 || !CPU_ISSET(cpu, &mask) || CPU_COUNT(&mask) < 2) return;
    CPU_CLR(cpu, &mask);
    (void)sched_setaffinity(0, sizeof mask, &mask);
#else
    (void)cpu;
#endif
}
