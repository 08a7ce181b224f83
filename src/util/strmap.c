/* Open-addressing string hash map (FNV-1a, linear probing, load factor <= 1/2). */
#include "util/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_string(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

bool cm_strmap_init(cm_strmap *m, size_t expected)
{
    size_t cap = 16;
    while (cap < expected * 2)
        cap *= 2;
    m->slots = calloc(cap, sizeof *m->slots);
    m->cap = m->slots ? cap : 0;
    m->count = 0;
    return m->slots != NULL;
}

void cm_strmap_free(cm_strmap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

static cm_strmap_slot *find_slot(cm_strmap_slot *slots, size_t cap, const char *key)
{
    size_t i = (size_t)hash_string(key) & (cap - 1);
    while (slots[i].key && strcmp(slots[i].key, key) != 0)
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static bool grow(cm_strmap *m)
{
    size_t cap = m->cap * 2;
    cm_strmap_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key)
            *find_slot(slots, cap, m->slots[i].key) = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return true;
}

bool cm_strmap_put(cm_strmap *m, const char *key, int value)
{
    if ((m->count + 1) * 2 > m->cap && !grow(m))
        return false;
    cm_strmap_slot *s = find_slot(m->slots, m->cap, key);
    if (!s->key) {
        s->key = key;
        m->count++;
    }
    s->value = value;
    return true;
}

int cm_strmap_get(const cm_strmap *m, const char *key)
{
    if (!m->cap)
        return -1;
    const cm_strmap_slot *s = find_slot(m->slots, m->cap, key);
    return s->key ? s->value : -1;
}
