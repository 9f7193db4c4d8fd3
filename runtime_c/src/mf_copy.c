/* mf_copy: a resource variable read into the arena or assigned from it. */
#include <string.h>

#include "mf_state.h"

void mf_copy(const mf_copy_params *p, const void *in, void *out)
{
    memcpy(out, in, p->bytes);
}
