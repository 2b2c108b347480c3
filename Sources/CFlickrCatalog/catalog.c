#include "CFlickrCatalog.h"

/* #embed is C23; the toolchain's clang has it in every language mode, with a pedantic warning. */
#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char catalog[] = {
#embed "data/catalog.json"
};

static const unsigned char examples[] = {
#embed "data/examples.json"
};

static const unsigned char names[] = {
#embed "data/names.txt"
};

const unsigned char *flickr_catalog_json(size_t *length) {
    *length = sizeof catalog;
    return catalog;
}

const unsigned char *flickr_examples_json(size_t *length) {
    *length = sizeof examples;
    return examples;
}

const unsigned char *flickr_method_names(size_t *length) {
    *length = sizeof names;
    return names;
}
