/* vn-request.h: what a VM asks for. */
#pragma once

#include <glib.h>

typedef enum {
    VN_SMT_PREFER,   /* whole cores first; siblings become guest threads */
    VN_SMT_ISOLATE,  /* one thread per core; the sibling stays idle */
    VN_SMT_REQUIRE,  /* whole cores only; vCPUs per cell must fill cores */
    VN_SMT_MAX
} VnSmtPolicy;

typedef enum {
    VN_PRIORITY_LOW,
    VN_PRIORITY_NORMAL,
    VN_PRIORITY_HIGH,
    VN_PRIORITY_MAX
} VnPriority;

typedef struct {
    guint node_os_id;  /* host NUMA node of the device (kernel number) */
    gint iothread;     /* IOThread id serving it, or 0 for none */
    gchar *name;       /* for reasons: "hostdev 0000:3b:00.0", "disk vda" */
} VnDevice;

typedef struct {
    guint vcpus;
    guint64 memory_kib;
    guint64 hugepage_kib;      /* 0: normal pages */
    gboolean dedicated;        /* 1:1 pinned, CPUs not shared with anyone */
    VnSmtPolicy smt;
    guint iothreads;
    VnPriority priority;
    guint cells;               /* 0: let vnuma choose; else fixed guest cells */
    gboolean allow_memory_only;/* may use memory-only nodes (HBM, CXL) */
    GArray *devices;           /* of VnDevice; may be NULL */
} VnRequest;

VnRequest *vn_request_new(void);
void vn_request_free(VnRequest *r);
void vn_request_add_device(VnRequest *r, guint node_os_id, gint iothread,
                           const gchar *name);

const gchar *vn_smt_policy_to_string(VnSmtPolicy p);
gboolean vn_smt_policy_from_string(const gchar *s, VnSmtPolicy *ret_p);
const gchar *vn_priority_to_string(VnPriority p);
gboolean vn_priority_from_string(const gchar *s, VnPriority *ret_p);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnRequest, vn_request_free)
