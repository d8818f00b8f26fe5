#!/usr/bin/env bash
# What a sealed diary's passphrase costs here (issue 41): Argon2id (libsodium's
# crypto_pwhash, v1.3) at the floor the client enforces, at the standard cost new envelopes
# use (DiarySeal/KeyEnvelope.swift: PassphraseCost), and at libsodium's "sensitive" cost for
# comparison. Each is one login's key derivation; hyperfine runs a small C program that
# makes exactly that one libsodium call, so the figure is the call's, not a process's start.
#
# Usage: bench/seal.sh            (needs libsodium-dev, a C compiler and hyperfine)
# Output: bench/out/seal/{results.md,hyperfine.json}
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out/seal
mkdir -p "$out"
command -v hyperfine >/dev/null || apt-get install -y -qq hyperfine >/dev/null
command -v cc >/dev/null || apt-get install -y -qq gcc >/dev/null
cat > "$out/argon2id.c" <<'C'
#include <sodium.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    if (argc != 3 || sodium_init() < 0) return 2;
    unsigned char key[32], salt[crypto_pwhash_SALTBYTES];
    randombytes_buf(salt, sizeof salt);
    const char *passphrase = "correct horse battery staple";
    return crypto_pwhash(key, sizeof key, passphrase, 28, salt, strtoull(argv[1], NULL, 10),
                         (size_t) strtoull(argv[2], NULL, 10), crypto_pwhash_ALG_ARGON2ID13) == 0 ? 0 : 1;
}
C
cc -O2 -o "$out/argon2id" "$out/argon2id.c" $(pkg-config --cflags --libs libsodium)
hyperfine -N -w 1 -r 10 --export-json "$out/hyperfine.json" \
    -n "floor: 2 passes over 64 MiB" "$out/argon2id 2 67108864" \
    -n "standard: 3 passes over 256 MiB" "$out/argon2id 3 268435456" \
    -n "sensitive: 4 passes over 1 GiB" "$out/argon2id 4 1073741824" | tee "$out/results.md"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {print int($2/1024/1024)" GiB"}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/results.md"
