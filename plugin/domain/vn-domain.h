/* vn-domain.h: a libvirt domain XML, read for what placement needs and
 * rewritten with a placement.
 *
 * A VnDomain owns the parsed libxml2 document (kept whole, comments and
 * whitespace included) plus the facts read from it.  vnuma owns only these
 * parts of a domain and changes nothing else:
 *   <vcpu placement/cpuset>, <cputune> vcpupin/emulatorpin/iothreadpin,
 *   <numatune>, <cpu><topology> and <cpu><numa> cells (when it wrote them),
 *   <memoryBacking><hugepages>, <metadata><vnuma:vnuma>.
 * Rewriting with the same inputs gives the same bytes.
 *
 * Hand-written pins: a vcpupin/emulatorpin/iothreadpin, <vcpu
 * placement='auto'> or <numatune> that vnuma's metadata does not account
 * for is hand-written.  <vcpu cpuset> is not a pin but an allowed set
 * (OpenStack Nova's cpu_shared_set writes it alone): vnuma plans inside it
 * and keeps it.  vn_domain_apply_placement() refuses to replace a
 * hand-written pin (VN_DOMAIN_ERROR_HANDWRITTEN, naming the element) unless
 * `force` is set; it never silently leaves a stale pin next to a new
 * placement.  Guest NUMA cells the user wrote (no vnuma placement recorded)
 * are guest ABI: their count and sizes are kept, vnuma binds them to nodes.
 *
 * Memory sizes are KiB, as libvirt's unit='KiB'.
 */
#pragma once

#include <glib.h>
#include <libxml/tree.h>
#include "vn-bitmap.h"
#include "vn-load.h"
#include "vn-placement.h"
#include "vn-request.h"
#include "vn-topology.h"

#define VN_DOMAIN_XMLNS "http://vnuma.dev/xmlns/domain/1.0"
#define VN_DOMAIN_XMLNS_PREFIX "vnuma"
/* Domains larger than this are refused before parsing. */
#define VN_DOMAIN_MAX_BYTES (16 * 1024 * 1024)

#define VN_DOMAIN_ERROR (vn_domain_error_quark())
GQuark vn_domain_error_quark(void);
typedef enum {
    VN_DOMAIN_ERROR_IO,          /* cannot read the file */
    VN_DOMAIN_ERROR_TOO_LARGE,   /* over VN_DOMAIN_MAX_BYTES */
    VN_DOMAIN_ERROR_MALFORMED,   /* not well-formed XML */
    VN_DOMAIN_ERROR_UNSAFE,      /* DOCTYPE with entity declarations */
    VN_DOMAIN_ERROR_INVALID,     /* well-formed, but not a usable domain */
    VN_DOMAIN_ERROR_HANDWRITTEN, /* would overwrite a hand-written pin */
    VN_DOMAIN_ERROR_MISMATCH,    /* placement does not fit this domain */
    VN_DOMAIN_ERROR_MAX
} VnDomainError;

/* ---- vnuma metadata (vn-domain-metadata.c) ----------------------------
 *
 *   <vnuma:vnuma xmlns:vnuma="http://vnuma.dev/xmlns/domain/1.0" manage="yes"
 *                [dedicated="yes|no"] [smt="prefer|isolate|require"]
 *                [priority="low|normal|high"] [tiers="off|spill|guest"]
 *                [memory="interleave"]>
 *     <vnuma:placement version= time= memory-mode= dedicated= hugepage-kib=
 *                      threads-per-core= [tiers="spill|guest"] [interleave="yes"]>
 *       <vnuma:cell id= node= vcpus= cpus= memory-kib=/>   (one per cell)
 *       <vnuma:emulator cpus=/>
 *       <vnuma:iothread id= cpus=/>                        (one per IOThread)
 *     </vnuma:placement>
 *   </vnuma:vnuma>
 * The optional dedicated/smt/priority attributes on <vnuma:vnuma> are the
 * user's wishes for the next placement (request hints: tiers overrides
 * [placement] tiers, memory="interleave" asks for memory interleaved over
 * several nodes instead of guest cells); the ones on <vnuma:placement>
 * describe the placement recorded (tiers spill and interleave: the cells
 * are host shares, not guest cells).  `node` is the host
 * kernel node number; vcpus are guest vCPU ids; cpus host CPU ids. */
typedef struct {
    guint id;         /* guest cell id */
    guint node_os_id; /* host kernel node number */
    VnBitmap *vcpus;  /* guest vCPUs of the cell */
    VnBitmap *cpus;   /* host CPUs the cell runs on */
    guint64 memory_kib;
} VnDomainMetaCell;

typedef struct {
    guint id; /* libvirt IOThread id */
    VnBitmap *cpus;
} VnDomainMetaIOThread;

typedef struct {
    gboolean manage; /* manage="yes" */
    /* request hints; *_set says whether the attribute was present */
    gboolean hint_dedicated_set, hint_dedicated;
    gboolean hint_smt_set;
    VnSmtPolicy hint_smt;
    gboolean hint_priority_set;
    VnPriority hint_priority;
    gboolean hint_tiers_set;
    VnTiers hint_tiers;
    gboolean hint_interleave; /* memory="interleave" */
    /* the recorded placement; has_placement FALSE when there is none */
    gboolean has_placement;
    gchar *version;
    gchar *time;
    VnMemoryMode memory_mode;
    gboolean dedicated;
    guint64 hugepage_kib;
    guint threads_per_core;
    VnTiers tiers;           /* tiers="spill|guest"; OFF when absent */
    gboolean interleave;     /* interleave="yes" */
    GArray *cells;           /* of VnDomainMetaCell, in document order */
    VnBitmap *emulator_cpus; /* NULL when not recorded */
    GArray *iothreads;       /* of VnDomainMetaIOThread */
} VnDomainMetadata;

VnDomainMetadata *vn_domain_metadata_new(void);
void vn_domain_metadata_free(VnDomainMetadata *m);
/* Parses a <vnuma:vnuma> element.  `source` names the document in errors. */
VnDomainMetadata *vn_domain_metadata_parse(xmlNode *node, const gchar *source, GError **error);
/* Formats `m` as a new, unlinked <vnuma:vnuma> element of `doc` declaring
 * its namespace, indented for its final `depth` (the root element is 0;
 * <domain><metadata><vnuma:vnuma> is 2) with `indent` spaces per level
 * (0 = no whitespace). */
xmlNode *vn_domain_metadata_format(const VnDomainMetadata *m, xmlDoc *doc, guint depth,
                                   guint indent);
gboolean vn_domain_metadata_equal_placement(const VnDomainMetadata *a, const VnDomainMetadata *b);

/* ---- the domain --------------------------------------------------------- */
typedef struct {
    guint id;        /* <cell id>, or its position */
    VnBitmap *vcpus; /* <cell cpus>; empty when omitted */
    guint64 memory_kib;
} VnDomainCell;

typedef struct {
    gchar *name;        /* for reasons: "hostdev 0000:3b:00.0" */
    gchar *pci_address; /* "0000:3b:00.0", or NULL */
    gchar *netdev;      /* host interface (type='direct'), or NULL */
    gchar *bridge;      /* host bridge (type='bridge', or 'network' as live XML names it) */
    guint vhost_queues; /* <driver name='vhost' queues='N'/> of an interface; 0 if unset */
    gchar *blockdev;    /* host block device (/dev/...), or NULL */
    guint iothread;     /* IOThread id serving it; 0 for none */
} VnDomainDevice;

typedef struct {
    gchar *source; /* file name or name given for errors */
    xmlDoc *doc;
    gboolean had_declaration; /* input started with <?xml ...?> */
    gboolean single_quotes;   /* input quoted attributes with ' mostly */
    gchar *name;
    gchar *uuid;                   /* NULL when absent */
    guint vcpus_max;               /* <vcpu>N</vcpu> */
    guint vcpus_current;           /* <vcpu current=>, else vcpus_max */
    VnBitmap *allowed_cpus;        /* <vcpu cpuset> when it reads as a CPU list
                                    * (no '^' exclusions), else NULL */
    guint64 memory_kib;            /* <memory>, or the sum of the cells */
    guint64 current_memory_kib;    /* <currentMemory>, else memory_kib */
    gboolean hugepages;            /* <memoryBacking><hugepages> present */
    guint64 hugepage_kib;          /* its page size; 0 = host default */
    gboolean hugepage_sizes_mixed; /* <page>s of several sizes */
    gboolean shared_memory;        /* vhost-user/virtiofs need memAccess shared */
    GArray *iothread_ids;          /* of guint, ascending */
    GArray *cells;                 /* of VnDomainCell: existing <cpu><numa> */
    GPtrArray *devices;            /* of VnDomainDevice* with a possible host node */
    VnDomainMetadata *meta;        /* NULL when the domain has no vnuma element */
} VnDomain;

VnDomain *vn_domain_load_file(const gchar *path, GError **error);
VnDomain *vn_domain_load_buffer(const gchar *buf, gsize len, const gchar *name_for_errors,
                                GError **error);
void vn_domain_free(VnDomain *d);
/* The document as XML text; same bytes for the same document.  Attributes
 * are quoted as the input mostly quoted them (libvirt: single quotes), so
 * the parts vnuma does not own come back byte for byte, except what
 * libxml2 normalises: namespace declarations come before the other
 * attributes of their element, character references are written as the
 * characters, <a></a> becomes <a/>. */
gchar *vn_domain_to_string(const VnDomain *d);

/* The metadata element parsed at load; FALSE + error only if it is broken
 * (load already rejects that, so this cannot fail on a loaded domain).
 * *ret_meta is NULL when the domain carries no vnuma element; the value is
 * a copy-free borrow, valid until the domain is rewritten or freed. */
gboolean vn_domain_get_metadata(const VnDomain *d, const VnDomainMetadata **ret_meta,
                                GError **error);

/* A recorded placement as a VnPlacement on `t`: nodes looked up by kernel
 * number, each vCPU pinned to its cell's CPUs, IOThread ids as recorded.
 * `m` must have has_placement.  Fails (VN_DOMAIN_ERROR_MISMATCH) when a
 * node or CPU is not on `t`. */
VnPlacement *vn_domain_metadata_to_placement(const VnDomainMetadata *m, const VnTopology *t,
                                             GError **error);

/* The placement recorded in the metadata, as a VnPlacement on `t` (nodes
 * looked up by kernel number).  vCPU pins come from the domain's
 * <cputune><vcpupin> when present, else each vCPU gets its cell's CPUs.
 * Returns NULL with *error unset when nothing is recorded; NULL with error
 * when a recorded node or CPU does not exist on `t`. */
VnPlacement *vn_domain_recorded_placement(const VnDomain *d, const VnTopology *t, GError **error);

/* The cpusets of <cputune><vcpupin>s for vCPUs 0..n_vcpus-1: a new array
 * of `n_vcpus` entries (it frees them), entry v the cpuset of the first
 * vcpupin with vcpu=v as a bitmap of `n_bits`, or NULL when there is none
 * or it is unreadable (a CPU beyond `n_bits` included).  One pass over the
 * pins, whatever `n_vcpus`. */
GPtrArray *vn_domain_vcpupins(const VnDomain *d, guint n_vcpus, guint n_bits);

/* ---- writing (vn-domain-write.c) ---------------------------------------- */
typedef struct {
    gboolean force;           /* replace hand-written pins and numatune */
    VnMemoryMode memory_mode; /* numatune mode, restrictive by default */
    const gchar *time;        /* metadata time; NULL = keep the recorded
                                 * time when the placement is unchanged,
                                 * else $SOURCE_DATE_EPOCH if set, else now
                                 * (UTC, "2026-11-29T22:00:00Z") */
} VnDomainWriteOptions;

/* Writes `p` (computed on `t`) into `d`.  On error `d` is unchanged. */
gboolean vn_domain_apply_placement(VnDomain *d, const VnTopology *t, const VnPlacement *p,
                                   const VnDomainWriteOptions *o, GError **error);

/* ---- another manager's pins (vn-domain-pins.c) ------------------------ */
typedef struct {
    guint cell_id;   /* <memnode cellid> */
    VnBitmap *nodes; /* its nodeset, kernel node numbers */
} VnDomainPinsMemnode;

typedef struct {
    gchar *what;            /* the first foreign element: "<cputune><vcpupin vcpu='0'>" */
    gboolean allowed_set;   /* `what` is "<vcpu cpuset>" alone, a set vnuma can read:
                             * an allowed set (VnDomain.allowed_cpus) that vnuma may
                             * place the domain in, not another manager's placement */
    GPtrArray *vcpu_cpus;   /* per vCPU (vcpus_max of them): VnBitmap of host CPUs from its
                             * <vcpupin>, or NULL when it has none */
    VnBitmap *vcpu_set;     /* <vcpu cpuset>: where unpinned vCPUs run, or NULL */
    VnBitmap *memory_nodes; /* <numatune><memory nodeset>, or NULL */
    GArray *memnodes;       /* of VnDomainPinsMemnode */
} VnDomainPins;

/* The pins and memory nodes of `d` that vnuma's metadata does not record
 * (written by another manager), or NULL when every one is vnuma's (or
 * there are none).  A domain whose only such part is a readable <vcpu
 * cpuset> gets pins with `allowed_set`: the caller places it inside
 * d->allowed_cpus when it manages the domain, and counts it as foreign
 * when it does not. */
VnDomainPins *vn_domain_foreign_pins(const VnDomain *d);
void vn_domain_pins_free(VnDomainPins *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnDomainPins, vn_domain_pins_free)

/* ---- the guest's view (vn-domain-guest-view.c) ------------------------ */
/* Whether the guest of `d` can see guest NUMA cells: FALSE for an x86
 * domain without <features><acpi/>. */
gboolean vn_domain_guest_sees_cells(const VnDomain *d);
/* What the guest of `d`, as written, cannot see of its NUMA cells, or
 * NULL: guest NUMA cells on an x86 domain without <features><acpi/>. */
gchar *vn_domain_guest_view_warning(const VnDomain *d);
/* Adds that warning to p->warnings; vn_engine_run() calls it after
 * writing. */
void vn_domain_check_guest_view(const VnDomain *d, VnPlacement *p);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnDomain, vn_domain_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnDomainMetadata, vn_domain_metadata_free)
