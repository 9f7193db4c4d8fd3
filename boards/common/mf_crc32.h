/* CRC-32 (IEEE 802.3, reflected, as zlib.crc32) computed byte by byte. */
#ifndef MF_CRC32_H
#define MF_CRC32_H
#include <stdint.h>

#define MF_CRC32_INIT 0xFFFFFFFFu
uint32_t mf_crc32_update(uint32_t crc, uint8_t byte);
#define MF_CRC32_FINAL(crc) ((crc) ^ 0xFFFFFFFFu)

#endif
