/* Unit tests for supervisor/sha256: FIPS 180-2 test vectors, padding
 * boundaries, incremental feeding, and sha256_file.
 *
 * Boundary digests were computed with Python's hashlib over the byte pattern
 * (i * 7 + 3) & 0xff. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervisor/explore/sha256.h"

static void to_hex(const uint8_t digest[32], char hex[65])
{
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

static void hash_hex(const void *data, size_t len, char hex[65])
{
    struct sha256 s;
    uint8_t digest[32];
    sha256_init(&s);
    sha256_update(&s, data, len);
    sha256_final(&s, digest);
    to_hex(digest, hex);
}

static void test_empty(void **state)
{
    (void)state;
    char hex[65];
    hash_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_empty_no_update(void **state)
{
    (void)state;
    struct sha256 s;
    uint8_t digest[32];
    char hex[65];
    sha256_init(&s);
    sha256_final(&s, digest);
    to_hex(digest, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_abc(void **state)
{
    (void)state;
    char hex[65];
    hash_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_448_bits(void **state)
{
    (void)state;
    static const char msg[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    assert_int_equal(strlen(msg), 56);
    char hex[65];
    hash_hex(msg, strlen(msg), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_million_a_uneven_chunks(void **state)
{
    (void)state;
    static char buf[1000];
    memset(buf, 'a', sizeof buf);
    struct sha256 s;
    sha256_init(&s);
    /* Chunk sizes that straddle block boundaries in every way: 1, 2, 3, ... 997, 1, ... */
    size_t left = 1000000, chunk = 1;
    while (left > 0) {
        size_t n = chunk < left ? chunk : left;
        sha256_update(&s, buf, n);
        left -= n;
        chunk = chunk % 997 + 1;
    }
    uint8_t digest[32];
    char hex[65];
    sha256_final(&s, digest);
    to_hex(digest, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_million_a_single_update(void **state)
{
    (void)state;
    char *buf = malloc(1000000);
    assert_non_null(buf);
    memset(buf, 'a', 1000000);
    char hex[65];
    hash_hex(buf, 1000000, hex);
    free(buf);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Messages whose length puts the 0x80 byte and the length field on each side
 * of a block boundary. */
static void test_padding_boundaries(void **state)
{
    (void)state;
    static const struct {
        size_t len;
        const char *hex;
    } cases[] = {
        {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
        {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
        {57, "35df609437dcfea3279283ab79fd554e2bf78f8f7ae2de532d8ee300b09e8f73"},
        {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
        {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
        {65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"},
        {119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"},
        {120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"},
        {127, "a8d23e75d936f303d248888d9b165ee543f4cbafcad3c9dd2a79bd84faa11d07"},
        {128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"},
    };
    uint8_t data[128];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 7 + 3);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char hex[65];
        hash_hex(data, cases[c].len, hex);
        assert_string_equal(hex, cases[c].hex);
        /* Byte-at-a-time gives the same result. */
        struct sha256 s;
        uint8_t digest[32];
        sha256_init(&s);
        for (size_t i = 0; i < cases[c].len; i++)
            sha256_update(&s, &data[i], 1);
        sha256_final(&s, digest);
        to_hex(digest, hex);
        assert_string_equal(hex, cases[c].hex);
    }
}

static void make_temp(char path[64])
{
    snprintf(path, 64, "/tmp/mdat_sha256_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

static void test_file_matches_memory(void **state)
{
    (void)state;
    /* 200000 bytes: several 64 KiB fread buffers plus a partial one. */
    size_t len = 200000;
    uint8_t *data = malloc(len);
    assert_non_null(data);
    for (size_t i = 0; i < len; i++)
        data[i] = (uint8_t)i;
    char path[64];
    make_temp(path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);

    char from_file[65], from_mem[65];
    memset(from_file, 'X', sizeof from_file);
    assert_true(sha256_file(path, from_file));
    hash_hex(data, len, from_mem);
    assert_string_equal(from_file, from_mem);
    assert_string_equal(from_file, "c7a7d73b68d21102bf7d6d9be27b4106497efc8119224bebfbd26b375541bde7");
    assert_int_equal(strlen(from_file), 64);
    unlink(path);
    free(data);
}

static void test_file_empty(void **state)
{
    (void)state;
    char path[64];
    make_temp(path);
    char hex[65];
    assert_true(sha256_file(path, hex));
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    unlink(path);
}

static void test_file_missing(void **state)
{
    (void)state;
    char hex[65] = "";
    assert_false(sha256_file("/nonexistent/mdat/sha256/no-such-file", hex));
}

/* A directory opens but cannot be read: a read error must not pass as the
 * hash of an empty file. */
static void test_file_directory(void **state)
{
    (void)state;
    char hex[65] = "";
    assert_false(sha256_file("/tmp", hex));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_empty_no_update),
        cmocka_unit_test(test_abc),
        cmocka_unit_test(test_448_bits),
        cmocka_unit_test(test_million_a_uneven_chunks),
        cmocka_unit_test(test_million_a_single_update),
        cmocka_unit_test(test_padding_boundaries),
        cmocka_unit_test(test_file_matches_memory),
        cmocka_unit_test(test_file_empty),
        cmocka_unit_test(test_file_missing),
        cmocka_unit_test(test_file_directory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
