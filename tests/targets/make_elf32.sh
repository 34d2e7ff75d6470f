#!/bin/sh
# make_elf32.sh OUT - write a minimal 32-bit x86 ELF header (64 bytes, mode 755).
#
# Bad-input fixture for mdat: a well-formed ELF32 executable header
# (ELFCLASS32, little-endian, ET_EXEC, EM_386, no program or section
# headers), padded with zeros to 64 bytes.  mdat must reject it as "not a
# 64-bit x86-64 executable"; the kernel refuses to exec it (no program
# headers), so a check that relies on exec failing is not enough.
set -e
out=$1
[ -n "$out" ] || { echo "usage: $0 OUT" >&2; exit 2; }
# e_ident: \177 E L F, class 1 (32-bit), data 1 (LSB), version 1, OSABI 0, 8 pad bytes
# e_type 2 (EXEC), e_machine 3 (386), e_version 1, e_entry 0x08048000,
# e_phoff 0, e_shoff 0, e_flags 0, e_ehsize 52, e_phentsize 32, e_phnum 0,
# e_shentsize 40, e_shnum 0, e_shstrndx 0; then 12 zero bytes of padding.
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000' > "$out.tmp"
printf '\002\000\003\000\001\000\000\000\000\200\004\010' >> "$out.tmp"
printf '\000\000\000\000\000\000\000\000\000\000\000\000' >> "$out.tmp"
printf '\064\000\040\000\000\000\050\000\000\000\000\000' >> "$out.tmp"
printf '\000\000\000\000\000\000\000\000\000\000\000\000' >> "$out.tmp"
chmod 755 "$out.tmp"
mv "$out.tmp" "$out"
