/*
 * bench_sink.c — the minimal loopback Flickr of scripts/bench (started and described by
 * bench_sink.py). It checks nothing (no signature, key or token) and answers from bodies made
 * once, so that a per-call figure is the client's cost and as little of a server's as can be:
 * per call it costs a few microseconds of CPU besides the kernel's socket work, where the Python
 * server it replaces cost 60-70 us, which was in every per-call figure of both clients.
 *
 * Usage: bench_sink PORT SEARCH_XML SEARCH_JSON
 *   PORT 0 takes any free port; the port is printed on stdout once listening.
 *   SEARCH_XML, SEARCH_JSON: files holding the canned flickr.photos.search page in each format.
 *
 * HTTP/1.1 with keep-alive, Content-Length or chunked request bodies, one thread per connection.
 * Routes (the method from the query string or a form body; its last occurrence wins, as Flickr):
 *   /services/rest[/]   flickr.test.echo: the plain arguments echoed (not oauth_*, and only
 *                       names that can be XML element names), as flickr-sandbox does;
 *                       flickr.photos.search: the canned page; anything else: an empty stat="ok".
 *                       XML unless format=json (JSON wrapped in jsonFlickrApi(…) or the
 *                       jsoncallback unless nojsoncallback=1), as Flickr.
 *   /services/upload/, /services/replace/: the body read in 1 MiB pieces and thrown away (an
 *                       upload then measures the client, not a disk), a Flickr-shaped success.
 *   anything else       404.
 * A request it cannot read (bad framing, a head over 64 KiB) closes the connection.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_HEAD (64 * 1024)
#define PIECE (1 << 20)

/* A growable byte string. */
typedef struct {
    char *bytes;
    size_t length, capacity;
} buffer;

static void buffer_reserve(buffer *b, size_t extra) {
    if (b->length + extra <= b->capacity) return;
    size_t capacity = b->capacity ? b->capacity : 4096;
    while (capacity < b->length + extra) capacity *= 2;
    b->bytes = realloc(b->bytes, capacity);
    if (!b->bytes) abort();
    b->capacity = capacity;
}

static void buffer_add(buffer *b, const char *bytes, size_t n) {
    buffer_reserve(b, n);
    memcpy(b->bytes + b->length, bytes, n);
    b->length += n;
}

static void buffer_str(buffer *b, const char *s) { buffer_add(b, s, strlen(s)); }

/* The canned bodies, made once at start (read-only afterwards, shared by every thread). */
static buffer search_xml, search_json;
static const char XML_HEAD[] = "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n";
static const char OK_XML[] = "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n</rsp>\n";
static const char OK_JSON[] = "{\"stat\":\"ok\"}";
static const char UPLOAD_XML[] = "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n<photoid>1</photoid>\n</rsp>\n";
static const char REPLACE_XML[] = "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n"
                                  "<photoid secret=\"abcdef0123\" originalsecret=\"0123abcdef\">1</photoid>\n</rsp>\n";

/* One connection's reading side: bytes received and not yet consumed are bytes[start, length). */
typedef struct {
    int fd;
    buffer in;
    size_t start;
} connection;

/* Receives more bytes into c->in, first moving the unconsumed ones to the front (so offsets
   relative to c->start stay valid across it, absolute ones do not); 0 when the peer closed or
   failed. */
static int receive(connection *c) {
    if (c->start > 0) {
        memmove(c->in.bytes, c->in.bytes + c->start, c->in.length - c->start);
        c->in.length -= c->start;
        c->start = 0;
    }
    buffer_reserve(&c->in, 64 * 1024);
    ssize_t n;
    do n = recv(c->fd, c->in.bytes + c->in.length, c->in.capacity - c->in.length, 0);
    while (n < 0 && errno == EINTR);
    if (n <= 0) return 0;
    c->in.length += (size_t)n;
    return 1;
}

/* The offset just past the next LF at or after c->start, receiving as needed; 0 on EOF or when
   `limit` bytes pass without one. */
static size_t line_end(connection *c, size_t limit) {
    for (size_t k = 0;; k++) {
        while (c->start + k >= c->in.length)
            if (k >= limit || !receive(c)) return 0;
        if (c->in.bytes[c->start + k] == '\n') return c->start + k + 1;
        if (k >= limit) return 0;
    }
}

/* Consumes `n` body bytes, appending them to `keep` when it is not NULL; 0 on EOF. */
static int take(connection *c, size_t n, buffer *keep) {
    while (n > 0) {
        if (c->start == c->in.length && !receive(c)) return 0;
        size_t have = c->in.length - c->start;
        size_t k = have < n ? have : n;
        if (keep) buffer_add(keep, c->in.bytes + c->start, k);
        c->start += k;
        n -= k;
    }
    return 1;
}

/* The head's fields this server acts on. */
typedef struct {
    char verb[16], target[8192], version[16];
    long long content_length;
    int chunked, close, form;
} head;

/* Case-insensitive search for `needle` in the `n` bytes at `s`. */
static int contains(const char *s, size_t n, const char *needle) {
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (strncasecmp(s + i, needle, k) == 0) return 1;
    return 0;
}

/* Reads a request line and headers; 0 at EOF or on a malformed or oversized head. */
static int read_head(connection *c, head *h) {
    memset(h, 0, sizeof *h);
    size_t end = line_end(c, MAX_HEAD);
    if (!end) return 0;
    char line[8300];
    size_t n = end - c->start;
    if (n >= sizeof line) return 0;
    memcpy(line, c->in.bytes + c->start, n);
    line[n] = 0;
    if (sscanf(line, "%15s %8191s %15s", h->verb, h->target, h->version) != 3) return 0;
    c->start = end;
    for (;;) {
        end = line_end(c, MAX_HEAD);
        if (!end) return 0;
        const char *f = c->in.bytes + c->start;
        size_t len = end - c->start;
        c->start = end;
        while (len > 0 && (f[len - 1] == '\n' || f[len - 1] == '\r')) len--;
        if (len == 0) return 1;
        const char *colon = memchr(f, ':', len);
        if (!colon) continue;
        size_t name = (size_t)(colon - f);
        const char *v = colon + 1;
        size_t vlen = len - name - 1;
        while (vlen > 0 && (*v == ' ' || *v == '\t')) v++, vlen--;
        if (name == 14 && strncasecmp(f, "content-length", 14) == 0) h->content_length = strtoll(v, NULL, 10);
        else if (name == 17 && strncasecmp(f, "transfer-encoding", 17) == 0) h->chunked = contains(v, vlen, "chunked");
        else if (name == 10 && strncasecmp(f, "connection", 10) == 0) h->close = contains(v, vlen, "close");
        else if (name == 12 && strncasecmp(f, "content-type", 12) == 0) h->form = contains(v, vlen, "x-www-form-urlencoded");
    }
}

/* Reads the request's body (Content-Length or chunked), kept in `keep` unless it is NULL. */
static int read_body(connection *c, const head *h, buffer *keep) {
    if (!h->chunked) return h->content_length >= 0 && take(c, (size_t)h->content_length, keep);
    for (;;) {
        size_t end = line_end(c, 1024);
        if (!end) return 0;
        char *stop;
        unsigned long long size = strtoull(c->in.bytes + c->start, &stop, 16);
        if (stop == c->in.bytes + c->start) return 0;
        c->start = end;
        if (size == 0) {  /* trailers, up to the blank line */
            for (;;) {
                end = line_end(c, MAX_HEAD);
                if (!end) return 0;
                int blank = end - c->start <= 2;
                c->start = end;
                if (blank) return 1;
            }
        }
        if (!take(c, (size_t)size, keep)) return 0;
        end = line_end(c, 2);  /* the CRLF after the chunk */
        if (!end) return 0;
        c->start = end;
    }
}

/* One argument, percent-decoded ('+' is a space), as parse_qsl gives it. */
typedef struct {
    char *name, *value;
} pair;

typedef struct {
    pair *items;
    size_t count, capacity;
} pairs;

static int hex(int ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Decodes n bytes of a query component into a new NUL-terminated string. */
static char *decode(const char *s, size_t n) {
    char *out = malloc(n + 1), *o = out;
    if (!out) abort();
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '+') *o++ = ' ';
        else if (s[i] == '%' && i + 2 < n && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            *o++ = (char)(hex(s[i + 1]) * 16 + hex(s[i + 2]));
            i += 2;
        } else *o++ = s[i];
    }
    *o = 0;
    return out;
}

/* Appends the arguments of an application/x-www-form-urlencoded string (blank values kept). */
static void parse_query(pairs *p, const char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != '&' && s[j] != ';') j++;
        if (j > i) {
            const char *eq = memchr(s + i, '=', j - i);
            size_t klen = eq ? (size_t)(eq - (s + i)) : j - i;
            if (p->count == p->capacity) {
                p->capacity = p->capacity ? p->capacity * 2 : 16;
                p->items = realloc(p->items, p->capacity * sizeof *p->items);
                if (!p->items) abort();
            }
            p->items[p->count].name = decode(s + i, klen);
            p->items[p->count].value = eq ? decode(eq + 1, j - i - klen - 1) : decode("", 0);
            p->count++;
        }
        i = j + 1;
    }
}

static void pairs_free(pairs *p) {
    for (size_t i = 0; i < p->count; i++) free(p->items[i].name), free(p->items[i].value);
    free(p->items);
}

/* The value of the last argument called `name`, or NULL. */
static const char *last(const pairs *p, const char *name) {
    for (size_t i = p->count; i-- > 0;)
        if (strcmp(p->items[i].name, name) == 0) return p->items[i].value;
    return NULL;
}

/* Whether flickr.test.echo sends this argument back: not an OAuth one, and a name that can be
   an XML element name ([A-Za-z_][A-Za-z0-9_.-]*), so that the answer stays well-formed. */
static int echoed(const char *name) {
    if (strncmp(name, "oauth_", 6) == 0) return 0;
    if (!(isalpha((unsigned char)name[0]) || name[0] == '_')) return 0;
    for (const char *s = name + 1; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '-')) return 0;
    return 1;
}

static void xml_escaped(buffer *b, const char *s) {
    for (; *s; s++) {
        if (*s == '&') buffer_str(b, "&amp;");
        else if (*s == '<') buffer_str(b, "&lt;");
        else if (*s == '>') buffer_str(b, "&gt;");
        else buffer_add(b, s, 1);
    }
}

static void json_string(buffer *b, const char *s) {
    buffer_add(b, "\"", 1);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        char esc[8];
        if (ch == '"' || ch == '\\') buffer_add(b, "\\", 1), buffer_add(b, s, 1);
        else if (ch == '\n') buffer_str(b, "\\n");
        else if (ch == '\r') buffer_str(b, "\\r");
        else if (ch == '\t') buffer_str(b, "\\t");
        else if (ch < 0x20) snprintf(esc, sizeof esc, "\\u%04x", ch), buffer_str(b, esc);
        else buffer_add(b, s, 1);
    }
    buffer_add(b, "\"", 1);
}

static void echo_xml(buffer *b, const pairs *p) {
    buffer_str(b, XML_HEAD);
    buffer_str(b, "<rsp stat=\"ok\">\n");
    for (size_t i = 0; i < p->count; i++) {
        const char *k = p->items[i].name;
        if (!echoed(k)) continue;
        buffer_str(b, "<"), buffer_str(b, k), buffer_str(b, ">");
        xml_escaped(b, p->items[i].value);
        buffer_str(b, "</"), buffer_str(b, k), buffer_str(b, ">\n");
    }
    buffer_str(b, "</rsp>\n");
}

/* {"name":{"_content":"value"},…,"stat":"ok"}: each name once, at its first place, with its last
   value (as a Python dict built from the pairs). */
static void echo_json(buffer *b, const pairs *p) {
    buffer_str(b, "{");
    for (size_t i = 0; i < p->count; i++) {
        const char *k = p->items[i].name;
        if (!echoed(k) || strcmp(k, "stat") == 0) continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) seen = strcmp(p->items[j].name, k) == 0;
        if (seen) continue;
        json_string(b, k);
        buffer_str(b, ":{\"_content\":");
        json_string(b, last(p, k));
        buffer_str(b, "},");
    }
    buffer_str(b, "\"stat\":\"ok\"}");
}

/* Writes all of head and body in one system call when the socket takes it. */
static int send_answer(int fd, const char *status, const char *ctype, const char *body, size_t n, int keep_alive) {
    char h[256];
    int hn = snprintf(h, sizeof h, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s\r\n", status, ctype, n,
                      keep_alive ? "" : "Connection: close\r\n");
    struct iovec v[2] = {{h, (size_t)hn}, {(void *)body, n}};
    size_t total = (size_t)hn + n, sent = 0;
    while (sent < total) {
        ssize_t w = writev(fd, v, 2);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return 0;
        sent += (size_t)w;
        for (int i = 0; i < 2; i++) {  /* move past what went out */
            size_t k = (size_t)w < v[i].iov_len ? (size_t)w : v[i].iov_len;
            v[i].iov_base = (char *)v[i].iov_base + k;
            v[i].iov_len -= k;
            w -= (ssize_t)k;
        }
    }
    return 1;
}

/* The REST answer for the arguments: content type and body (in `out`, or a canned one). */
static void rest_answer(const pairs *p, buffer *out, const char **ctype, const char **body, size_t *n) {
    const char *method = last(p, "method");
    const char *format = last(p, "format");
    int is_echo = method && strcmp(method, "flickr.test.echo") == 0;
    int is_search = method && strcmp(method, "flickr.photos.search") == 0;
    if (!format || strcmp(format, "json") != 0) {
        *ctype = "text/xml; charset=utf-8";
        if (is_echo) echo_xml(out, p), *body = out->bytes, *n = out->length;
        else if (is_search) *body = search_xml.bytes, *n = search_xml.length;
        else *body = OK_XML, *n = sizeof OK_XML - 1;
        return;
    }
    buffer json = {0};
    if (is_echo) echo_json(&json, p);
    else if (is_search) buffer_add(&json, search_json.bytes, search_json.length);
    else buffer_str(&json, OK_JSON);
    const char *nocallback = last(p, "nojsoncallback");
    if (nocallback && strcmp(nocallback, "1") == 0) {
        *ctype = "application/json; charset=utf-8";
        buffer_add(out, json.bytes, json.length);
    } else {
        const char *callback = last(p, "jsoncallback");
        *ctype = "text/javascript; charset=utf-8";
        buffer_str(out, callback ? callback : "jsonFlickrApi");
        buffer_str(out, "(");
        buffer_add(out, json.bytes, json.length);
        buffer_str(out, ")");
    }
    free(json.bytes);
    *body = out->bytes, *n = out->length;
}

/* Answers one request; 0 when the connection is to be closed. */
static int one_request(connection *c) {
    head h;
    if (!read_head(c, &h)) return 0;
    int keep_alive = strcmp(h.version, "HTTP/1.1") == 0 && !h.close;
    char *query = strchr(h.target, '?');
    size_t path_len = query ? (size_t)(query - h.target) : strlen(h.target);
    const char *status = "200 OK", *ctype = "text/xml; charset=utf-8", *body = "";
    size_t n = 0;
    buffer out = {0};
    int ok;
    if (strncmp(h.target, "/services/upload", 16) == 0 || strncmp(h.target, "/services/replace", 17) == 0) {
        ok = read_body(c, &h, NULL);
        int upload = h.target[10] == 'u';
        body = upload ? UPLOAD_XML : REPLACE_XML;
        n = upload ? sizeof UPLOAD_XML - 1 : sizeof REPLACE_XML - 1;
    } else if ((path_len == 14 || path_len == 15) && strncmp(h.target, "/services/rest/", path_len) == 0) {
        buffer form = {0};
        ok = read_body(c, &h, &form);
        pairs p = {0};
        if (query) parse_query(&p, query + 1, strlen(query + 1));
        if (h.form && form.length) parse_query(&p, form.bytes, form.length);
        if (ok) rest_answer(&p, &out, &ctype, &body, &n);
        pairs_free(&p);
        free(form.bytes);
    } else {
        ok = read_body(c, &h, NULL);
        status = "404 Not Found", ctype = "text/plain; charset=utf-8", body = "not found\n", n = 10;
    }
    ok = ok && send_answer(c->fd, status, ctype, body, n, keep_alive);
    free(out.bytes);
    return ok && keep_alive;
}

static void *serve_connection(void *arg) {
    connection c = {.fd = (int)(long)arg};
    int one = 1;
    /* Each answer goes out in one write; no delay waiting to coalesce. */
    setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    while (one_request(&c)) {}
    close(c.fd);
    free(c.in.bytes);
    return NULL;
}

static int read_file(const char *path, buffer *into) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char piece[65536];
    size_t n;
    while ((n = fread(piece, 1, sizeof piece, f)) > 0) buffer_add(into, piece, n);
    int ok = !ferror(f);
    fclose(f);
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: bench_sink PORT SEARCH_XML SEARCH_JSON\n");
        return 2;
    }
    if (!read_file(argv[2], &search_xml) || !read_file(argv[3], &search_json)) {
        perror("bench_sink: reading the canned search pages");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);  /* a client that went away ends its connection, not the server */
    int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    if (bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(listener, 64) < 0 ||
        getsockname(listener, (struct sockaddr *)&addr, &len) < 0) {
        perror("bench_sink: listening on 127.0.0.1");
        return 1;
    }
    /* Listening from here on: the harness waits for this line. */
    printf("%d\n", ntohs(addr.sin_port));
    fflush(stdout);
    for (;;) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE) continue;
            perror("bench_sink: accept");
            return 1;
        }
        pthread_t thread;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&thread, &attr, serve_connection, (void *)(long)fd) != 0) close(fd);
        pthread_attr_destroy(&attr);
    }
}
