#include "CFlickrXML.h"

#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h> /* xmlCreateMemoryParserCtxt */
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

/* Per-parse state: the Swift handlers and the first error seen. */
typedef struct fx_state {
    const fx_handlers *handlers;
    void *ctx;
    xmlParserCtxtPtr parser;
    char *error;
    size_t error_len;
    int *error_line;
    int failed;
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

static void fx_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                     int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
                     const xmlChar **attributes) {
    (void)prefix; (void)uri; (void)nb_namespaces; (void)namespaces; (void)nb_defaulted;
    fx_state *s = ctx;
    if (s->failed) return;
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
    s->handlers->start_element(s->ctx, (const char *)localname, nb_attributes, attrs);
    if (heap) xmlFree(heap);
}

static void fx_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
    (void)localname; (void)prefix; (void)uri;
    fx_state *s = ctx;
    if (!s->failed) s->handlers->end_element(s->ctx);
}

static void fx_characters(void *ctx, const xmlChar *ch, int len) {
    fx_state *s = ctx;
    if (!s->failed && len > 0) s->handlers->characters(s->ctx, (const char *)ch, len);
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
    pthread_once(&fx_once, fx_initialise);
    fx_state state = { handlers, ctx, NULL, error, error_len, error_line, 0 };
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
    int ok = rc == 0 && parser->wellFormed && !state.failed;
    if (!ok && !state.failed) fx_fail(&state, "malformed XML", 0);
    xmlFreeParserCtxt(parser);
    return ok ? 0 : -1;
}
