/* sha256: the hash that ties a schedule file to the exact binary it was made with. */
#ifndef MDAT_SUPERVISOR_SHA256_H
#define MDAT_SUPERVISOR_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sha256 {
    uint32_t h[8];
    uint64_t length;
    uint8_t block[64];
    size_t used;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t digest[32]);
/* Hex digest of a file's contents into hex[65]; false if unreadable. */
bool sha256_file(const char *path, char hex[65]);

#endif
