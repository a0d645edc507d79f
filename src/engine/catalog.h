/*
 * kvbench's backend catalog (config/catalog.h) over its registries: the workloads, connection
 * types, flash methods and instruments every agenda and platform file is checked against.
 * config/ is handed this table rather than including the registries above it
 * (docs/design.md#layers-and-rooms).
 */
#ifndef KVB_ENGINE_CATALOG_H
#define KVB_ENGINE_CATALOG_H

#include "config/catalog.h"

/* Static; kvb_workloads[], kvb_targets[], kvb_flashers[] read in their order. */
extern const struct kvb_catalog kvb_catalog;

#endif
