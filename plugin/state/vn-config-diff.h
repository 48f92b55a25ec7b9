/* vn-config-diff.h: what a config read again changes, key by key, as the
 * schema (vn-config-schema.h) says: vnumad's SIGHUP. */
#pragma once

#include <glib.h>
#include "vn-config.h"

typedef struct {
    /* "[group] key old -> new" (or "[group] key changed" for a terse key),
     * in schema order: the keys whose new value applies at once */
    GPtrArray *changed;
    /* "[group] key": the keys that changed but need a restart */
    GPtrArray *kept;
    /* the schema rows of `kept` (borrowed) */
    GPtrArray *kept_keys;
} VnConfigDiff;

/* Compares `next` (a file as read) with `running`, on every row of the
 * schema; a key that needs a restart counts as kept, and so does one whose
 * restart_with key changed too. */
VnConfigDiff *vn_config_diff(const VnConfig *running, const VnConfig *next);
/* Gives `next` the running value of every kept key, so that it can
 * replace `running` with only what applies at once changed. */
void vn_config_diff_keep_running(const VnConfigDiff *d, const VnConfig *running, VnConfig *next);
void vn_config_diff_free(VnConfigDiff *d);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnConfigDiff, vn_config_diff_free)
