/* Resource caps: the share of a board a design may use (--max-util, the caps of a
 * sweep and the DSP and BRAM limits of --target-fps), and the limits they give each
 * partition. */
#include <math.h>

#include "design/design_internal.h"

void cm_util_caps_set_all(cm_util_caps *caps, double f)
{
    caps->dsp = caps->bram18 = caps->uram = caps->lut = caps->ff = f;
}

static bool whole(double f) { return f <= 0.0 || f >= 1.0; }

bool cm_util_caps_whole(const cm_util_caps *caps)
{
    return whole(caps->dsp) && whole(caps->bram18) && whole(caps->uram) && whole(caps->lut) &&
           whole(caps->ff);
}

/* Board counts stay below 2^40 (board.h), so a double holds them exactly. */
static int64_t capped(int64_t have, double f)
{
    return whole(f) ? have : (int64_t)floor((double)have * f);
}

void cm_util_caps_apply(const cm_util_caps *caps, const cm_resources *board, cm_resources *out)
{
    out->dsp = capped(board->dsp, caps->dsp);
    out->bram18 = capped(board->bram18, caps->bram18);
    out->uram = capped(board->uram, caps->uram);
    out->lut = capped(board->lut, caps->lut);
    out->ff = capped(board->ff, caps->ff);
}

const cm_resources *cm_design_limits(const cm_design *d) { return &d->limits; }

void cm_design_set_limits(cm_design *d, const cm_resources *limits)
{
    const cm_resources *b = &d->board.resources;
    d->limits.dsp = limits->dsp < b->dsp ? limits->dsp : b->dsp;
    d->limits.bram18 = limits->bram18 < b->bram18 ? limits->bram18 : b->bram18;
    d->limits.uram = limits->uram < b->uram ? limits->uram : b->uram;
    d->limits.lut = limits->lut < b->lut ? limits->lut : b->lut;
    d->limits.ff = limits->ff < b->ff ? limits->ff : b->ff;
}
