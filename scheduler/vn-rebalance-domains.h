/* vn-rebalance-domains.h: the rebalancer inside a node — guest dies
 * between the cache domains (L3) of one node, and the domains a cell
 * moved to another node takes there.  Internal to vn-rebalance*.c; the
 * contract is in vn-rebalance.h. */
#pragma once

#include "vn-rebalance.h"

/* Room per cache domain: usable CPUs x overcommit, and the shared vCPUs
 * placed there (VnLoad.domain_vcpus), updated as moves are chosen. */
typedef struct {
    const VnTopology *t;
    gboolean balance; /* domains counted: move dies between them */
    gdouble *cap;     /* per domain; 0 when no usable CPU */
    gdouble *vcpus;   /* per domain */
} VnDomainRoom;

void vn_domain_room_init(VnDomainRoom *room, const VnTopology *t, const VnLoad *load,
                         const VnPolicy *policy);
void vn_domain_room_clear(VnDomainRoom *room);

/* Whether `r` may move in this round (vn-rebalance.c): not dedicated,
 * not moved already (`moved` holds the residents moved), not cooling
 * down. */
gboolean vn_rebalance_movable(const VnResident *r, const VnRebalanceLimits *lim, GHashTable *moved);

/* The best move of one guest die from the cache domain furthest above its
 * node's mean (by more than lim->threshold) to another domain of that
 * node with room, or NULL (nothing hot, or no die that fits elsewhere and
 * helps; `notes` then says which).  The move is accounted in `room` and
 * its VM added to `moved`. */
VnMove *vn_rebalance_domains_move(VnDomainRoom *room, GPtrArray *residents,
                                  const VnRebalanceLimits *lim, GHashTable *moved,
                                  GPtrArray *notes);

/* For the move `m` of cell `c` to node m->to_node: when the cell's dies
 * each sit in one domain, the domains of the target node they take (the
 * most room first, one a die, each with room for its vCPUs, in `allowed`
 * when not NULL) in m->domains, accounted in `room`; a cell whose dies
 * find no such domains floats over the target node and m->reason says
 * so. */
void vn_rebalance_domains_place(VnDomainRoom *room, const VnResidentCell *c,
                                const VnBitmap *allowed, VnMove *m);
