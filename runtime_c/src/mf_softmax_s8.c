/* microfuse runtime: int8 SOFTMAX, bit-exact with TFLite Micro's reference kernel (gemmlowp
 * fixed point, mf_softmax_fixed.h). The exp of every possible row-max difference (0..255) is a
 * compile-time table. */
#include "mf_softmax_fixed.h"

void mf_softmax_s8(const mf_softmax_s8_params *p, const int8_t *in, int8_t *out)
{
    mf_softmax_s8_body(p, in, out, 8);
}
