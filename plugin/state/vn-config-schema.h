/* vn-config-schema.h: every group and key of vnuma.conf, in one table.
 *
 * The table is the schema: vn_config_load() reads the file by walking it
 * (and refuses a group or key it does not hold), vn_config_new_default()
 * takes its defaults from it, vn_config_diff() (vnumad's SIGHUP) compares
 * two configs row by row and knows from it which keys need a restart, and
 * the doc tests check that the sample tools/vnuma.conf and vnuma.conf(5)
 * list exactly its keys with its defaults.
 */
#pragma once

#include <glib.h>
#include "vn-config.h"

/* What a key holds, and so how its text is read and written back. */
typedef enum {
    VN_CONFIG_KIND_BOOL,      /* gboolean: true, false, 1, 0 */
    VN_CONFIG_KIND_UINT,      /* guint in [min, max] */
    VN_CONFIG_KIND_DOUBLE,    /* gdouble above dmin, at most dmax */
    VN_CONFIG_KIND_CHOICE,    /* an enum: the index of its name in names() */
    VN_CONFIG_KIND_SIZE,      /* guint64 KiB (vn-size.h), "0" allowed */
    VN_CONFIG_KIND_CPULIST,   /* VnBitmap *: CPUs of the host; empty = none */
    VN_CONFIG_KIND_STRING,    /* gchar *; empty = NULL (unset) */
    VN_CONFIG_KIND_PATH,      /* gchar *: an absolute path */
    VN_CONFIG_KIND_DATAPLANE, /* GHashTable *: domain -> GStrv of specs */
    VN_CONFIG_KIND_MAX
} VnConfigKind;

/* What a changed value does in a running vnumad (SIGHUP). */
typedef enum {
    VN_CONFIG_RELOAD_AT_ONCE, /* the new value is used from the next request on */
    VN_CONFIG_RELOAD_RESTART, /* the running value stays until a restart */
    VN_CONFIG_RELOAD_MAX
} VnConfigReload;

typedef struct VnConfigKey VnConfigKey;

/* A rule beyond the kind, checked once the whole file is read (so it may
 * look at other keys); the message says what is wrong, without the file,
 * group and key, which the caller puts in front. */
typedef gboolean (*VnConfigCheck)(const VnConfigKey *k, const VnConfig *c, const VnTopology *t,
                                  GError **error);

struct VnConfigKey {
    const gchar *group;
    const gchar *key; /* NULL: any key; the group's keys are names ([dataplane]) */
    VnConfigKind kind;
    gboolean in_policy; /* offset is into VnConfig.policy, else into VnConfig */
    gsize offset;
    guint min, max;                     /* UINT */
    gdouble dmin, dmax;                 /* DOUBLE */
    const gchar *const *(*names)(void); /* CHOICE */
    const gchar *default_text;          /* as the sample config's commented line writes it */
    const gchar *example;               /* a valid value other than the default */
    VnConfigReload reload;
    const gchar *restart_with; /* a key of the same group: a change of both needs a restart */
    gboolean terse;            /* a change is logged as "changed": a secret, or too long */
    VnConfigCheck check;       /* NULL: the kind says it all */
};

/* The table; *ret_n rows. */
const VnConfigKey *vn_config_schema(gsize *ret_n);
/* The row of `group` / `key` (`key` NULL: the group's first row), or NULL. */
const VnConfigKey *vn_config_schema_find(const gchar *group, const gchar *key);
/* "[group] key", or "[group]" for a group of names (newly allocated). */
gchar *vn_config_key_name(const VnConfigKey *k);

/* Reads `text` (stripped) for `key` of row `k` into `c`.  The message of a
 * refusal says what is wrong with the value only. */
gboolean vn_config_key_read(const VnConfigKey *k, const gchar *key, const gchar *text,
                            const VnTopology *t, VnConfig *c, GError **error);
/* The value of row `k` in `c` as text ("" for none): two configs agree on
 * a key when these texts do.  Sizes as vnuma.conf writes them ("2G"). */
gchar *vn_config_key_format(const VnConfigKey *k, const VnConfig *c);
/* Replaces row `k`'s value in `dst` with a copy of the one in `src`. */
void vn_config_key_copy(const VnConfigKey *k, VnConfig *dst, const VnConfig *src);
