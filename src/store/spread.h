/*
 * Is the board crossed with the kernel? (docs/design.md#pools-and-lava: a variant's rounds spread
 * over the boards, so a board effect cancels instead of passing for a kernel
 * effect.) When a run's boots used two boards or more, a variant whose boots
 * (two or more) all ran on one board is confounded with that board: LAVA ran
 * every round of `cloud` on device 01 and every round of `generic` on device 02.
 */
#ifndef KVB_STORE_SPREAD_H
#define KVB_STORE_SPREAD_H

#include "core/util.h"
#include "store/store.h"

/* One message per such variant of the run into msgs ("variant cloud ran all 2 of its boots on board
 * kvb-qemu-01, while the run used 2 boards: ..."). KVB_ESTORE. */
int kvb_store_unspread_variants(struct kvb_store *s, int64_t run_id, struct kvb_strv *msgs, struct kvb_error *err);

#endif
