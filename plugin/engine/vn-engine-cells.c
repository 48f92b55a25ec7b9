/* vn-engine-cells.c: the cell-count rule, the one answer to "how many
 * guest cells, and may they be re-chosen" (its cases: vn-engine.h). */
#include "vn-engine.h"

VnEngineCells
vn_engine_cell_rule(const VnDomain *d, VnEngineIntent intent, const VnRequest *req)
{
    guint g = d->cells ? d->cells->len : 0;
    guint m = d->meta && d->meta->has_placement && d->meta->cells ? d->meta->cells->len : 0;
    VnEngineCells c = { .cells = g, .rechoose = FALSE };

    if (g == 0) {
        c.cells = intent == VN_ENGINE_FILTER ? 1 : 0;
        return c;
    }
    /* cells of their own sizes are the request's cell_sizes */
    c.rechoose = m == g && !(req && req->cell_sizes);
    return c;
}
