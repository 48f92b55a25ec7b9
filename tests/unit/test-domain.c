/* test-domain.c: domain XML reading, the vnuma metadata, and writing
 * placements built by hand (the writer alone, without vn_plan). */
#include <glib.h>
#include <glib/gstdio.h>
#include <libxml/parser.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vn-cpulist.h"
#include "vn-domain.h"
#include "vn-engine.h"
#include "vn-topology-source.h"

static gchar *
data_path(const gchar *name)
{
    return g_build_filename(g_getenv("VN_TEST_DATA"), "domain", name, NULL);
}

static VnDomain *
load(const gchar *name)
{
    g_autofree gchar *path = data_path(name);
    g_autoptr(GError) error = NULL;
    VnDomain *d = vn_domain_load_file(path, &error);

    g_assert_no_error(error);
    return d;
}

static VnDomain *
load_text(const gchar *text, GError **error)
{
    return vn_domain_load_buffer(text, strlen(text), "test.xml", error);
}

/* A hand-made shared placement: cell i on node index nodes[i], each cell
 * with `vcpus` vCPUs and `kib` KiB; emulator and IOThreads on cell 0. */
static VnPlacement *
make_placement(const VnTopology *t, guint n, const guint *nodes, guint vcpus, guint64 kib,
               guint iothreads)
{
    VnPlacement *p = vn_placement_new();

    for (guint i = 0; i < n; i++) {
        VnCell c = { .id = i,
                     .node = nodes[i],
                     .node_os_id = t->nodes[nodes[i]].os_id,
                     .vcpu_first = i * vcpus,
                     .n_vcpus = vcpus,
                     .cpus = vn_bitmap_copy(t->nodes[nodes[i]].cpus),
                     .memory_kib = kib };
        for (guint v = 0; v < vcpus; v++)
            g_ptr_array_add(p->vcpu_pins, vn_bitmap_copy(c.cpus));
        g_array_append_val(p->cells, c);
    }
    p->emulator_cpus = vn_bitmap_copy(t->nodes[nodes[0]].cpus);
    for (guint i = 0; i < iothreads; i++) {
        VnIOThreadPin io = { .id = i + 1,
                             .cell = 0,
                             .cpus = vn_bitmap_copy(t->nodes[nodes[0]].cpus) };
        g_array_append_val(p->iothreads, io);
    }
    return p;
}

static VnTopology *
four_nodes(void)
{
    g_autoptr(GError) error = NULL;
    VnTopology *t = vn_topology_load_synthetic("pack:2 numa:2 core:4 pu:2", &error);

    g_assert_no_error(error);
    g_assert_cmpuint(t->n_nodes, ==, 4);
    return t;
}

static const VnDomainWriteOptions fixed_time = { .memory_mode = VN_MEMORY_MODE_RESTRICTIVE,
                                                 .time = "2026-11-29T22:00:00Z" };

/* ---- reading ------------------------------------------------------------ */

static void
test_load_basic(void)
{
    g_autoptr(VnDomain) d = load("web.xml");

    g_assert_cmpstr(d->name, ==, "vnt-web");
    g_assert_cmpstr(d->uuid, ==, "5c1a6a5e-3f9b-4c2b-9d1e-2f6f1b0a7c01");
    g_assert_cmpuint(d->vcpus_max, ==, 4);
    g_assert_cmpuint(d->vcpus_current, ==, 2);
    g_assert_cmpuint(d->memory_kib, ==, 4 * 1024 * 1024);
    g_assert_cmpuint(d->current_memory_kib, ==, 2048 * 1024);
    g_assert_cmpuint(d->iothread_ids->len, ==, 2);
    g_assert_cmpuint(d->devices->len, ==, 3);
    g_assert_false(d->hugepages);
    g_assert_null(d->meta);
}

static void
test_request_mixed_pages(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = load_text(
        "<domain><name>z</name><memory>1048576</memory><vcpu>2</vcpu><memoryBacking><hugepages>"
        "<page size='2' unit='M' nodeset='0'/><page size='1' unit='G' nodeset='1'/></hugepages>"
        "</memoryBacking><cpu><numa><cell cpus='0' memory='524288'/><cell cpus='1' "
        "memory='524288'/>"
        "</numa></cpu></domain>",
        &error);

    /* valid libvirt: it loads (the hook must read it); it is not placed */
    g_assert_no_error(error);
    g_assert_true(d->hugepage_sizes_mixed);
    g_assert_null(vn_domain_to_request(d, NULL, &error));
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID);
    g_assert_nonnull(strstr(error->message, "one page size"));
}

static void
test_request(void)
{
    g_autoptr(VnDomain) d = load("web.xml");
    g_autofree gchar *sysroot = data_path("sysroot");
    g_autoptr(GError) error = NULL;
    g_autoptr(VnRequest) r = vn_domain_to_request(d, sysroot, &error);
    VnDevice *dev;

    g_assert_no_error(error);
    g_assert_cmpuint(r->vcpus, ==, 4);
    g_assert_cmpuint(r->memory_kib, ==, 4194304);
    g_assert_cmpuint(r->iothreads, ==, 2);
    g_assert_cmpuint(r->cells, ==, 0);
    g_assert_cmpuint(r->hugepage_kib, ==, 0);
    /* 0000:3b:00.0 is on node 1; 0000:5e:00.1 says -1; eth0 has no sysfs entry */
    g_assert_nonnull(r->devices);
    g_assert_cmpuint(r->devices->len, ==, 1);
    dev = &g_array_index(r->devices, VnDevice, 0);
    g_assert_cmpuint(dev->node_os_id, ==, 1);
    g_assert_cmpstr(dev->name, ==, "hostdev 0000:3b:00.0");
}

static void
test_request_devices_sysfs(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = load_text(
        "<domain><name>dev</name><memory>1048576</memory><vcpu>2</vcpu>"
        "<iothreads>2</iothreads><iothreadids><iothread id='7'/><iothread id='9'/></iothreadids>"
        "<devices>"
        "<disk type='block' device='disk'><driver name='qemu' iothread='9'/>"
        "<source dev='/dev/nvme0n1'/><target dev='vda' bus='virtio'/></disk>"
        "<disk type='nvme' device='disk'><driver name='qemu' iothread='7'/>"
        "<source type='pci'><address domain='0x0000' bus='0x3b' slot='0x00' "
        "function='0x0'/></source>"
        "<target dev='vdb' bus='virtio'/></disk>"
        "<interface type='direct'><source dev='eth1' mode='passthrough'/></interface>"
        "<interface type='direct'><source dev='../../etc' mode='passthrough'/></interface>"
        "</devices></domain>",
        &error);
    g_autofree gchar *sysroot = data_path("sysroot");
    g_autoptr(VnRequest) r = NULL;
    const VnDevice *dev;

    g_assert_no_error(error);
    g_assert_cmpuint(d->iothread_ids->len, ==, 2);
    r = vn_domain_to_request(d, sysroot, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(r->iothreads, ==, 2);
    g_assert_cmpuint(r->devices->len, ==, 3);
    /* block device: sys/class/block/nvme0n1/device/device/numa_node; its
     * IOThread id 9 is the second, ordinal 2 */
    dev = &g_array_index(r->devices, VnDevice, 0);
    g_assert_cmpstr(dev->name, ==, "disk /dev/nvme0n1");
    g_assert_cmpuint(dev->node_os_id, ==, 2);
    g_assert_cmpint(dev->iothread, ==, 2);
    dev = &g_array_index(r->devices, VnDevice, 1);
    g_assert_cmpstr(dev->name, ==, "disk nvme 0000:3b:00.0");
    g_assert_cmpuint(dev->node_os_id, ==, 1);
    g_assert_cmpint(dev->iothread, ==, 1);
    dev = &g_array_index(r->devices, VnDevice, 2);
    g_assert_cmpstr(dev->name, ==, "interface eth1");
    g_assert_cmpuint(dev->node_os_id, ==, 3);
}

typedef struct {
    const gchar *memory; /* the <memory> element */
    guint64 kib;         /* 0: must fail */
} UnitCase;

static void
test_units(void)
{
    static const UnitCase cases[] = {
        { "<memory>1048576</memory>", 1048576 },
        { "<memory unit='KiB'>4</memory>", 4 },
        { "<memory unit='k'>4</memory>", 4 },
        { "<memory unit='KB'>4096</memory>", 4000 },
        { "<memory unit='M'>2</memory>", 2048 },
        { "<memory unit='MB'>1</memory>", 977 },
        { "<memory unit='GiB'>2</memory>", 2097152 },
        { "<memory unit='G'>1</memory>", 1048576 },
        { "<memory unit='GB'>1</memory>", 976563 },
        { "<memory unit='TiB'>1</memory>", 1073741824 },
        { "<memory unit='b'>1025</memory>", 2 },
        { "<memory unit='bytes'>1024</memory>", 1 },
        { "<memory unit='EiB'>15</memory>", G_GUINT64_CONSTANT(15) << 50 },
        { "<memory unit='EiB'>16</memory>", 0 },
        { "<memory unit='PiB'>99999</memory>", 0 },
        { "<memory>18446744073709551616</memory>", 0 },
        { "<memory unit='furlongs'>4</memory>", 0 },
        { "<memory unit='GiBs'>4</memory>", 0 },
        { "<memory unit='GiB'>-4</memory>", 0 },
        { "<memory unit='GiB'>4.5</memory>", 0 },
        { "<memory unit='GiB'>0</memory>", 0 },
        { "<memory unit='GiB'></memory>", 0 },
    };

    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree gchar *xml = g_strdup_printf(
            "<domain type='qemu'><name>u</name>%s<vcpu>1</vcpu></domain>", cases[i].memory);
        g_autoptr(GError) error = NULL;
        g_autoptr(VnDomain) d = load_text(xml, &error);
        if (cases[i].kib) {
            g_assert_no_error(error);
            g_assert_cmpuint(d->memory_kib, ==, cases[i].kib);
        } else {
            g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID);
            g_assert_null(strchr(error->message, '\n'));
            g_test_message("%s -> %s", cases[i].memory, error->message);
        }
    }
}

typedef struct {
    const gchar *name;
    const gchar *xml;
    gint code;
    const gchar *needle; /* must appear in the message */
} BadCase;

static void
test_bad_domains(void)
{
    static const BadCase cases[] = {
        { "zero vcpus", "<domain><name>z</name><memory>1024</memory><vcpu>0</vcpu></domain>",
          VN_DOMAIN_ERROR_INVALID, "0 vCPUs" },
        { "current zero",
          "<domain><name>z</name><memory>1024</memory><vcpu current='0'>2</vcpu></domain>",
          VN_DOMAIN_ERROR_INVALID, "0 vCPUs" },
        { "absurd vcpus",
          "<domain><name>z</name><memory>1024</memory><vcpu>99999999</vcpu></domain>",
          VN_DOMAIN_ERROR_INVALID, "<vcpu>" },
        { "no name", "<domain><memory>1024</memory><vcpu>1</vcpu></domain>",
          VN_DOMAIN_ERROR_INVALID, "no <name>" },
        { "no memory", "<domain><name>z</name><vcpu>1</vcpu></domain>", VN_DOMAIN_ERROR_INVALID,
          "no memory" },
        { "not a domain", "<network><name>z</name></network>", VN_DOMAIN_ERROR_INVALID,
          "not <domain>" },
        { "truncated", "<domain><name>z</name><memory>1024</memory><vcpu>1</v",
          VN_DOMAIN_ERROR_MALFORMED, "test.xml:1:" },
        { "empty", "", VN_DOMAIN_ERROR_MALFORMED, "test.xml" },
        { "bad cell cpus",
          "<domain><name>z</name><vcpu>2</vcpu><cpu><numa><cell cpus='0-7' "
          "memory='1024'/></numa></cpu></domain>",
          VN_DOMAIN_ERROR_INVALID, "<cell cpus>" },
        { "zero page size",
          "<domain><name>z</name><memory>1048576</memory><vcpu>2</vcpu><memoryBacking><hugepages>"
          "<page size='0' unit='M'/></hugepages></memoryBacking></domain>",
          VN_DOMAIN_ERROR_INVALID, "page size" },
        { "bad metadata",
          "<domain><name>z</name><memory>1024</memory><vcpu>1</vcpu><metadata>"
          "<vnuma:vnuma xmlns:vnuma='http://vnuma.dev/xmlns/domain/1.0' manage='maybe'/>"
          "</metadata></domain>",
          VN_DOMAIN_ERROR_INVALID, "manage='maybe'" },
        { "bad metadata cell",
          "<domain><name>z</name><memory>1024</memory><vcpu>1</vcpu><metadata>"
          "<vnuma:vnuma xmlns:vnuma='http://vnuma.dev/xmlns/domain/1.0' manage='yes'>"
          "<vnuma:placement><vnuma:cell id='0' node='x' vcpus='0' cpus='0' memory-kib='1'/>"
          "</vnuma:placement></vnuma:vnuma></metadata></domain>",
          VN_DOMAIN_ERROR_INVALID, "node" },
        /* found by fuzz-domain-xml: the quoted text kept its newlines */
        { "memory with newlines",
          "<domain><name>z</name><memory>1\n<name>x</name>\n</memory><vcpu>1</vcpu></domain>",
          VN_DOMAIN_ERROR_INVALID, "<memory>: '1 x' is not a whole number" },
        { "newline in name",
          "<domain><name>a&#10;b</name><memory>1024</memory><vcpu>1</vcpu></domain>",
          VN_DOMAIN_ERROR_INVALID, "<name> holds a newline" },
    };

    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GError) error = NULL;
        g_autoptr(VnDomain) d = load_text(cases[i].xml, &error);
        g_test_message("%s: %s", cases[i].name, error ? error->message : "(accepted)");
        g_assert_null(d);
        g_assert_error(error, VN_DOMAIN_ERROR, cases[i].code);
        g_assert_nonnull(strstr(error->message, cases[i].needle));
        g_assert_null(strchr(error->message, '\n'));
    }
}

/* ---- hostile input -------------------------------------------------- */

static void
assert_refused(const gchar *xml, gint code, gdouble max_seconds)
{
    g_autoptr(GError) error = NULL;
    gint64 start = g_get_monotonic_time();
    g_autoptr(VnDomain) d = load_text(xml, &error);
    gdouble took = (g_get_monotonic_time() - start) / 1e6;

    g_test_message("refused in %.3f s: %s", took, error ? error->message : "(accepted!)");
    g_assert_null(d);
    /* code -1: libxml2 may stop it first (entity loop), or vnuma does */
    if (code < 0)
        g_assert_true(g_error_matches(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_UNSAFE) ||
                      g_error_matches(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_MALFORMED));
    else
        g_assert_error(error, VN_DOMAIN_ERROR, code);
    g_assert_null(strchr(error->message, '\n'));
    g_assert_cmpfloat(took, <, max_seconds);
}

static void
test_billion_laughs(void)
{
    GString *s = g_string_new("<?xml version='1.0'?>\n<!DOCTYPE domain [\n<!ENTITY l0 'lol'>\n");

    for (guint i = 1; i < 10; i++)
        g_string_append_printf(
            s, "<!ENTITY l%u '&l%u;&l%u;&l%u;&l%u;&l%u;&l%u;&l%u;&l%u;&l%u;&l%u;'>\n", i, i - 1,
            i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
    g_string_append(s,
                    "]>\n<domain><name>&l9;</name><memory>1024</memory><vcpu>1</vcpu></domain>\n");
    assert_refused(s->str, -1, 2.0);
    g_string_free(s, TRUE);
}

static void
test_external_entity(void)
{
    assert_refused(
        "<?xml version='1.0'?>\n<!DOCTYPE domain [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>\n"
        "<domain><name>&x;</name><memory>1024</memory><vcpu>1</vcpu></domain>\n",
        VN_DOMAIN_ERROR_UNSAFE, 2.0);
    assert_refused("<?xml version='1.0'?>\n<!DOCTYPE domain SYSTEM 'http://example.org/evil.dtd'>\n"
                   "<domain><name>&x;</name><memory>1024</memory><vcpu>1</vcpu></domain>\n",
                   VN_DOMAIN_ERROR_MALFORMED, 2.0);
    assert_refused(
        "<?xml version='1.0'?>\n<!DOCTYPE domain [<!ENTITY % p SYSTEM 'file:///etc/passwd'> %p;]>\n"
        "<domain><name>x</name><memory>1024</memory><vcpu>1</vcpu></domain>\n",
        VN_DOMAIN_ERROR_UNSAFE, 2.0);
}

/* An entity or DTD naming a FIFO: if the parser ever opened it, open()
 * would block (no writer) and the alarm would end the test.  So this
 * proves nothing outside the input is read. */
static void
test_nothing_read_outside(void)
{
    g_autofree gchar *dir = g_dir_make_tmp("vn-test-fifo-XXXXXX", NULL);
    g_autofree gchar *fifo = g_build_filename(dir, "trap", NULL);
    g_autofree gchar *entity = NULL;
    g_autofree gchar *dtd = NULL;

    g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
    entity = g_strdup_printf("<!DOCTYPE domain [<!ENTITY x SYSTEM 'file://%s'>]>\n"
                             "<domain><name>&x;</name><vcpu>1</vcpu><memory>1</memory></domain>",
                             fifo);
    dtd = g_strdup_printf("<!DOCTYPE domain SYSTEM '%s'>\n"
                          "<domain><name>x</name><vcpu>1</vcpu><memory>1</memory></domain>",
                          fifo);
    alarm(10);
    assert_refused(entity, VN_DOMAIN_ERROR_UNSAFE, 2.0);
    {
        /* no entity declared: a plain DOCTYPE is harmless and the DTD is
         * never loaded */
        g_autoptr(GError) error = NULL;
        g_autoptr(VnDomain) d = load_text(dtd, &error);
        g_assert_no_error(error);
        g_assert_cmpstr(d->name, ==, "x");
    }
    alarm(0);
    g_unlink(fifo);
    g_rmdir(dir);
}

static void
test_too_large(void)
{
    gsize len = 100 * 1024 * 1024;
    g_autofree gchar *path = g_build_filename(g_get_tmp_dir(), "vn-test-domain-huge.xml", NULL);
    g_autoptr(GError) error = NULL;
    gint64 start;
    FILE *f = fopen(path, "w");

    /* A sparse 100 MiB file: refused from its size, never read. */
    g_assert_nonnull(f);
    fputs("<domain>", f);
    g_assert_cmpint(fseek(f, (long)len, SEEK_SET), ==, 0);
    fputs("</domain>", f);
    fclose(f);
    start = g_get_monotonic_time();
    g_assert_null(vn_domain_load_file(path, &error));
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_TOO_LARGE);
    g_assert_nonnull(strstr(error->message, path));
    g_assert_cmpint(g_get_monotonic_time() - start, <, G_USEC_PER_SEC);
    g_unlink(path);
    g_clear_error(&error);
    /* and from a buffer */
    g_assert_null(vn_domain_load_buffer("<domain/>", VN_DOMAIN_MAX_BYTES + 1, "big", &error));
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_TOO_LARGE);
}

static void
test_missing_file(void)
{
    g_autoptr(GError) error = NULL;

    g_assert_null(vn_domain_load_file("/nonexistent/dom.xml", &error));
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_IO);
    g_assert_nonnull(strstr(error->message, "/nonexistent/dom.xml"));
}

/* ---- metadata ----------------------------------------------------------- */

static const gchar meta_xml[] =
    "<domain type='qemu'>\n"
    "  <name>m</name>\n"
    "  <metadata>\n"
    "    <vnuma:vnuma xmlns:vnuma=\"http://vnuma.dev/xmlns/domain/1.0\" manage=\"yes\" "
    "smt=\"isolate\">\n"
    "      <vnuma:placement version=\"0.1.0\" time=\"2026-11-29T22:00:00Z\" "
    "memory-mode=\"restrictive\" dedicated=\"no\" hugepage-kib=\"0\" threads-per-core=\"1\">\n"
    "        <vnuma:cell id=\"0\" node=\"1\" vcpus=\"0-3\" cpus=\"4-7\" memory-kib=\"4194304\"/>\n"
    "        <vnuma:emulator cpus=\"4-7\"/>\n"
    "        <vnuma:iothread id=\"1\" cpus=\"4-7\"/>\n"
    "      </vnuma:placement>\n"
    "    </vnuma:vnuma>\n"
    "  </metadata>\n"
    "  <memory unit='KiB'>4194304</memory>\n"
    "  <vcpu placement='static'>4</vcpu>\n"
    "  <iothreads>1</iothreads>\n"
    "</domain>\n";

static void
test_metadata_parse(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = load_text(meta_xml, &error);
    const VnDomainMetadata *m = NULL;
    const VnDomainMetaCell *c;
    g_autofree gchar *cpus = NULL;

    g_assert_no_error(error);
    g_assert_true(vn_domain_get_metadata(d, &m, &error));
    g_assert_nonnull(m);
    g_assert_true(m->manage);
    g_assert_true(m->hint_smt_set);
    g_assert_cmpint(m->hint_smt, ==, VN_SMT_ISOLATE);
    g_assert_true(m->has_placement);
    g_assert_cmpstr(m->time, ==, "2026-11-29T22:00:00Z");
    g_assert_cmpuint(m->cells->len, ==, 1);
    c = &g_array_index(m->cells, VnDomainMetaCell, 0);
    g_assert_cmpuint(c->node_os_id, ==, 1);
    g_assert_cmpuint(c->memory_kib, ==, 4194304);
    cpus = vn_cpulist_format(c->cpus);
    g_assert_cmpstr(cpus, ==, "4-7");
    g_assert_cmpuint(m->iothreads->len, ==, 1);
}

static void
test_metadata_roundtrip(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = load_text(meta_xml, &error);
    xmlNode *el;
    xmlBuffer *buf = xmlBufferCreate();
    g_autofree gchar *text = NULL;
    g_autofree gchar *want = NULL;
    const gchar *start, *end;

    g_assert_no_error(error);
    el = vn_domain_metadata_format(d->meta, d->doc, 2, 2);
    xmlNodeDump(buf, d->doc, el, 0, 0);
    text = g_strdup((const gchar *)xmlBufferContent(buf));
    xmlBufferFree(buf);
    xmlFreeNode(el);
    /* the formatted element is byte-identical to the one in the input */
    start = strstr(meta_xml, "<vnuma:vnuma");
    end = strstr(meta_xml, "</vnuma:vnuma>") + strlen("</vnuma:vnuma>");
    want = g_strndup(start, end - start);
    g_assert_cmpstr(text, ==, want);
}

static void
test_metadata_manage_only(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d =
        load_text("<domain><name>m</name><memory>1024</memory><vcpu>1</vcpu><metadata>"
                  "<vnuma:vnuma xmlns:vnuma='http://vnuma.dev/xmlns/domain/1.0' manage='yes' "
                  "dedicated='yes'/>"
                  "</metadata></domain>",
                  &error);
    g_autoptr(VnRequest) r = NULL;

    g_assert_no_error(error);
    g_assert_true(d->meta->manage);
    g_assert_false(d->meta->has_placement);
    r = vn_domain_to_request(d, NULL, &error);
    g_assert_true(r->dedicated);
}

/* ---- writing ------------------------------------------------------------ */

static gchar *
apply(VnDomain *d, const VnTopology *t, const VnPlacement *p, const VnDomainWriteOptions *o)
{
    g_autoptr(GError) error = NULL;

    g_assert_true(vn_domain_apply_placement(d, t, p, o, &error));
    g_assert_no_error(error);
    return vn_domain_to_string(d);
}

static void
assert_contains(const gchar *hay, const gchar *needle)
{
    if (!strstr(hay, needle))
        g_error("missing %s in:\n%s", needle, hay);
}

static void
test_write_vhost_user(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = load_text(
        "<domain type='qemu'><name>vu</name><memory>4194304</memory><vcpu>4</vcpu><devices>"
        "<interface type='vhostuser'><source type='unix' path='/tmp/vu.sock' mode='client'/>"
        "<model type='virtio'/></interface></devices></domain>",
        &error);
    g_autoptr(VnPlacement) p = make_placement(t, 2, (const guint[]){ 0, 1 }, 2, 2097152, 0);
    g_autofree gchar *out = NULL;

    g_assert_no_error(error);
    g_assert_true(d->shared_memory);
    out = apply(d, t, p, &fixed_time);
    assert_contains(out, "<cell id='0' cpus='0-1' memory='2097152' unit='KiB' memAccess='shared'>");
}

/* <driver name='vhost' queues='N'/> read as libvirt reads it: decimal
 * ("10" is ten, not read as octal or hex), a driver other than vhost or
 * a value that is not a count is no queue count; a type='ethernet' tap
 * counts too. */
static void
test_vhost_queues(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = load_text(
        "<domain type='kvm'><name>mq</name><memory>4194304</memory><vcpu>4</vcpu><devices>"
        "<interface type='direct'><source dev='eth1' mode='bridge'/><model type='virtio'/>"
        "<driver name='vhost' queues='10'/></interface>"
        "<interface type='direct'><source dev='eth2' mode='bridge'/><model type='virtio'/>"
        "<driver name='qemu' queues='4'/></interface>"
        "<interface type='bridge'><source bridge='br0'/><model type='virtio'/>"
        "<driver queues='010'/></interface>"
        "<interface type='bridge'><source bridge='br1'/><model type='virtio'/>"
        "<driver queues='0x4'/></interface>"
        "<interface type='ethernet'><model type='virtio'/><driver name='qemu'/></interface>"
        "<interface type='ethernet'><model type='virtio'/>"
        "<driver name='vhost' queues='4'/></interface></devices></domain>",
        &error);
    /* an ethernet tap is listed only for its queues (the first has none) */
    const guint want[] = { 10, 0, 10, 0, 4 };

    g_assert_no_error(error);
    g_assert_cmpuint(d->devices->len, ==, G_N_ELEMENTS(want));
    for (guint i = 0; i < G_N_ELEMENTS(want); i++)
        g_assert_cmpuint(((const VnDomainDevice *)d->devices->pdata[i])->vhost_queues, ==, want[i]);
}

/* A dedicated placement with guest SMT: one pin per vCPU, guest threads
 * on host sibling threads, a topology that says so. */
static void
test_write_dedicated_smt(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnDomain) d = load("web.xml");
    g_autoptr(VnPlacement) p = make_placement(t, 1, (const guint[]){ 1 }, 4, 4194304, 2);
    g_autofree gchar *out = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) back = NULL;

    p->dedicated = TRUE;
    p->threads_per_core = 2;
    for (guint v = 0; v < 4; v++) {
        VnBitmap *pin = p->vcpu_pins->pdata[v];
        vn_bitmap_clear_all(pin);
        vn_bitmap_set(pin, 8 + v); /* node 1 holds CPUs 8-15, siblings 8/9, 10/11 */
    }
    out = apply(d, t, p, &fixed_time);
    assert_contains(out, "<vcpupin vcpu='0' cpuset='8'/>");
    assert_contains(out, "<vcpupin vcpu='3' cpuset='11'/>");
    assert_contains(out, "<topology sockets='1' dies='1' cores='2' threads='2'/>");
    assert_contains(out, "dedicated='yes' hugepage-kib='0' threads-per-core='2'");
    g_assert_null(strstr(out, "<numa>"));
    /* the recorded placement gives back the single-CPU pins */
    back = vn_domain_recorded_placement(d, t, &error);
    g_assert_no_error(error);
    g_assert_true(back->dedicated);
    g_assert_cmpuint(vn_bitmap_count(back->vcpu_pins->pdata[2]), ==, 1);
    g_assert_true(vn_bitmap_test(back->vcpu_pins->pdata[2], 10));
}

/* Two guest cells on one host node: libvirt refuses a distance of 10
 * between different cells, so they get 11. */
static void
test_write_cells_same_node(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnDomain) d = load("web.xml");
    g_autoptr(VnPlacement) p = make_placement(t, 2, (const guint[]){ 2, 2 }, 2, 2097152, 0);
    g_autofree gchar *out = apply(d, t, p, &fixed_time);

    assert_contains(out, "<sibling id='0' value='10'/>\n          <sibling id='1' value='11'/>");
    assert_contains(out, "<sibling id='0' value='11'/>\n          <sibling id='1' value='10'/>");
    assert_contains(out, "<memory mode='restrictive' nodeset='2'/>");
}

static void
test_write_one_cell(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnDomain) d = load("web.xml");
    g_autoptr(VnPlacement) p = make_placement(t, 1, (const guint[]){ 1 }, 4, 4194304, 2);
    g_autofree gchar *out = apply(d, t, p, &fixed_time);

    g_test_message("%s", out);
    assert_contains(out, "<vcpu current='2' placement='static'>4</vcpu>");
    assert_contains(out, "    <shares>2048</shares>\n    <vcpupin vcpu='0' cpuset='8-15'/>\n");
    assert_contains(out, "<emulatorpin cpuset='8-15'/>");
    assert_contains(out, "<iothreadpin iothread='2' cpuset='8-15'/>");
    assert_contains(out, "<numatune>\n    <memory mode='restrictive' nodeset='1'/>\n  </numatune>");
    assert_contains(out, "<!-- a comment vnuma must keep -->");
    assert_contains(out, "<app:info xmlns:app='http://example.org/app/1'>keep me</app:info>");
    assert_contains(out, "<qemu:arg value='-no-user-config'/>");
    assert_contains(out,
                    "<vnuma:cell id='0' node='1' vcpus='0-3' cpus='8-15' memory-kib='4194304'/>");
    g_assert_null(strstr(out, "<numa>"));
    g_assert_null(strstr(out, "<?xml"));
    g_assert_true(d->meta && d->meta->has_placement);
}

/* Every input line vnuma does not own comes back byte for byte, in order. */
static void
test_write_keeps_bytes(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnDomain) d = load("web.xml");
    g_autoptr(VnPlacement) p = make_placement(t, 2, (const guint[]){ 0, 2 }, 2, 2097152, 2);
    g_autofree gchar *path = data_path("web.xml");
    g_autofree gchar *input = NULL;
    g_autofree gchar *out = apply(d, t, p, &fixed_time);
    g_auto(GStrv) in_lines = NULL;
    g_auto(GStrv) out_lines = g_strsplit(out, "\n", -1);
    guint o = 0;

    g_assert_true(g_file_get_contents(path, &input, NULL, NULL));
    in_lines = g_strsplit(input, "\n", -1);
    for (guint i = 0; in_lines[i]; i++) {
        if (strstr(in_lines[i], "<vcpu "))
            continue; /* vnuma's: placement='static' added */
        if (strstr(in_lines[i], "<domain "))
            continue; /* libxml2 writes xmlns:qemu before type= */
        while (out_lines[o] && g_strcmp0(out_lines[o], in_lines[i]) != 0)
            o++;
        if (!out_lines[o])
            g_error("input line %u not kept: %s\n%s", i + 1, in_lines[i], out);
    }
}

static void
test_write_two_cells(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnDomain) d = load("web.xml");
    g_autoptr(VnPlacement) p = make_placement(t, 2, (const guint[]){ 0, 2 }, 2, 2097152, 2);
    VnDomainWriteOptions o = fixed_time;
    g_autofree gchar *out = NULL;

    o.memory_mode = VN_MEMORY_MODE_STRICT;
    out = apply(d, t, p, &o);
    g_test_message("%s", out);
    assert_contains(out, "<topology sockets='2' dies='1' cores='2' threads='1'/>");
    assert_contains(out, "<cell id='0' cpus='0-1' memory='2097152' unit='KiB'>");
    assert_contains(out, "<sibling id='1' value='20'/>");
    assert_contains(out, "<memory mode='strict' nodeset='0,2'/>");
    assert_contains(out, "<memnode cellid='1' mode='strict' nodeset='2'/>");
    assert_contains(out, "<vcpupin vcpu='3' cpuset='16-23'/>");
    assert_contains(out, "memory-mode='strict'");
    g_assert_null(strstr(out, "clusters"));
    g_assert_cmpuint(d->cells->len, ==, 2);
}

static void
test_write_idempotent(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnDomain) d = load("web.xml");
    g_autoptr(VnPlacement) p = make_placement(t, 2, (const guint[]){ 3, 1 }, 2, 2097152, 2);
    VnDomainWriteOptions o = { .memory_mode = VN_MEMORY_MODE_RESTRICTIVE };
    g_autofree gchar *once = apply(d, t, p, &o);
    g_autofree gchar *twice = apply(d, t, p, &o); /* no time given: kept */
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) again = load_text(once, &error);
    g_autofree gchar *thrice = NULL;

    g_assert_cmpstr(once, ==, twice);
    g_assert_no_error(error);
    thrice = apply(again, t, p, &o);
    g_assert_cmpstr(once, ==, thrice);
}

static void
test_write_moves(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnDomain) d = load("web.xml");
    g_autoptr(VnPlacement) p2 = make_placement(t, 2, (const guint[]){ 0, 2 }, 2, 2097152, 2);
    g_autoptr(VnPlacement) p1 = make_placement(t, 1, (const guint[]){ 3 }, 4, 4194304, 2);
    g_autoptr(VnDomain) fresh = load("web.xml");
    g_autofree gchar *a = apply(d, t, p2, &fixed_time);
    g_autofree gchar *b = apply(d, t, p1, &fixed_time); /* vnuma's own pins: replaced */
    g_autofree gchar *c = apply(fresh, t, p1, &fixed_time);

    g_assert_nonnull(a);
    /* two cells then one: the cells, memnodes and pins go; the guest
     * topology of the two-cell placement stays (still valid) */
    g_assert_null(strstr(b, "<numa>"));
    g_assert_null(strstr(b, "memnode"));
    assert_contains(b, "<topology sockets='2'");
    g_assert_null(strstr(c, "<topology"));
    assert_contains(b, "<vcpupin vcpu='3' cpuset='24-31'/>");
}

static void
test_write_handwritten(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnDomain) d = load("pinned.xml");
    g_autoptr(VnPlacement) p = make_placement(t, 1, (const guint[]){ 1 }, 2, 1048576, 0);
    g_autofree gchar *before = vn_domain_to_string(d);
    g_autofree gchar *after = NULL;
    g_autofree gchar *out = NULL;
    g_autoptr(GError) error = NULL;
    VnDomainWriteOptions o = fixed_time;

    g_assert_false(vn_domain_apply_placement(d, t, p, &o, &error));
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_HANDWRITTEN);
    g_assert_nonnull(strstr(error->message, "<cputune><vcpupin vcpu='0'>"));
    g_assert_nonnull(strstr(error->message, "--force"));
    after = vn_domain_to_string(d);
    g_assert_cmpstr(before, ==, after); /* untouched on error */
    o.force = TRUE;
    out = apply(d, t, p, &o);
    g_assert_null(strstr(out, "cpuset='0'"));
    assert_contains(out, "<vcpupin vcpu='1' cpuset='8-15'/>");
}

#define SHARED_DOMAIN(vcpu_attrs, extra)                                                           \
    "<domain type='kvm'><name>instance-0000000b</name>"                                            \
    "<memory unit='KiB'>1048576</memory>"                                                          \
    "<vcpu placement='static'" vcpu_attrs ">2</vcpu>" extra                                        \
    "<os><type arch='x86_64'>hvm</type></os></domain>"

/* OpenStack Nova's cpu_shared_set writes <vcpu cpuset> and nothing else:
 * an allowed set, not another manager's placement.  With a vcpupin, a
 * <numatune> or a set vnuma cannot read ('^') it stays foreign. */
static void
test_pins_allowed_set(void)
{
    static const struct {
        const gchar *xml;
        gboolean allowed_set;
        const gchar *what;
    } cases[] = {
        { SHARED_DOMAIN(" cpuset='8-15'", "<cputune><shares>2048</shares></cputune>"), TRUE,
          "<vcpu cpuset>" },
        { SHARED_DOMAIN(" cpuset='8-15'", "<cputune><vcpupin vcpu='0' cpuset='8'/></cputune>"),
          FALSE, "<cputune><vcpupin vcpu='0'>" },
        { SHARED_DOMAIN(" cpuset='8-15'",
                        "<numatune><memory mode='strict' nodeset='1'/></numatune>"),
          FALSE, "<numatune><memory>" },
        { SHARED_DOMAIN(" cpuset='8-15,^9'", ""), FALSE, "<vcpu cpuset>" },
        { SHARED_DOMAIN("", ""), FALSE, NULL },
    };

    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GError) error = NULL;
        g_autoptr(VnDomain) d = load_text(cases[i].xml, &error);
        g_assert_no_error(error);
        g_autoptr(VnDomainPins) pins = vn_domain_foreign_pins(d);
        if (!cases[i].what) {
            g_assert_null(pins);
            g_assert_null(d->allowed_cpus);
            continue;
        }
        g_assert_nonnull(pins);
        g_assert_cmpstr(pins->what, ==, cases[i].what);
        g_assert_cmpint(pins->allowed_set, ==, cases[i].allowed_set);
        if (cases[i].allowed_set) {
            g_autofree gchar *set = vn_cpulist_format(d->allowed_cpus);
            g_assert_cmpstr(set, ==, "8-15");
        }
    }
}

/* Writing into a domain with an allowed set: no --force needed, the set
 * stays when the pins are inside it and goes when they are not; a set
 * vnuma cannot read is refused as hand-written. */
static void
test_write_allowed_set(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnPlacement) p = make_placement(t, 1, (const guint[]){ 1 }, 2, 1048576, 0);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) inside = load_text(SHARED_DOMAIN(" cpuset='8-15'", ""), &error);
    g_autoptr(VnDomain) outside = load_text(SHARED_DOMAIN(" cpuset='8-11'", ""), &error);
    g_autoptr(VnDomain) unread = load_text(SHARED_DOMAIN(" cpuset='8-15,^9'", ""), &error);
    g_autofree gchar *a = NULL, *b = NULL;

    g_assert_no_error(error);
    a = apply(inside, t, p, &fixed_time);
    assert_contains(a, "<vcpu placement='static' cpuset='8-15'>2</vcpu>");
    assert_contains(a, "<vcpupin vcpu='1' cpuset='8-15'/>");
    b = apply(outside, t, p, &fixed_time);
    assert_contains(b, "<vcpu placement='static'>2</vcpu>");
    g_assert_false(vn_domain_apply_placement(unread, t, p, &fixed_time, &error));
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_HANDWRITTEN);
    g_assert_nonnull(strstr(error->message, "<vcpu cpuset> (a set with '^' exclusions)"));
}

static void
test_write_hand_edited_after_vnuma(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnDomain) d = load("web.xml");
    g_autoptr(VnPlacement) p = make_placement(t, 1, (const guint[]){ 1 }, 4, 4194304, 2);
    g_autofree gchar *out = apply(d, t, p, &fixed_time);
    g_autoptr(GString) edited = g_string_new(out);
    g_autoptr(VnDomain) e = NULL;
    g_autoptr(GError) error = NULL;

    /* someone moves vCPU 2 by hand, outside what vnuma recorded */
    g_string_replace(edited, "<vcpupin vcpu='2' cpuset='8-15'/>", "<vcpupin vcpu='2' cpuset='0'/>",
                     1);
    e = load_text(edited->str, &error);
    g_assert_no_error(error);
    g_assert_false(vn_domain_apply_placement(e, t, p, &fixed_time, &error));
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_HANDWRITTEN);
    g_assert_nonnull(strstr(error->message, "vcpu='2'"));
}

static void
test_write_user_cells(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnDomain) d = load("user-cells.xml");
    g_autoptr(VnPlacement) p = make_placement(t, 2, (const guint[]){ 1, 3 }, 2, 1048576, 0);
    g_autofree gchar *sysroot = data_path("sysroot");
    g_autoptr(GError) error = NULL;
    g_autoptr(VnRequest) r = vn_domain_to_request(d, sysroot, &error);
    g_autofree gchar *out = NULL;
    g_autofree gchar *again = NULL;

    g_assert_cmpuint(r->cells, ==, 2);
    g_assert_cmpuint(r->memory_kib, ==, 3145728);
    g_assert_cmpuint(r->hugepage_kib, ==, 2048);
    p->hugepage_kib = 2048;
    out = apply(d, t, p, &fixed_time);
    g_test_message("%s", out);
    /* the user's cells (interleaved vCPUs, uneven memory) are kept */
    assert_contains(out, "<cell id='0' cpus='0,2' memory='2097152' unit='KiB' discard='yes'>");
    assert_contains(out, "<vcpupin vcpu='2' cpuset='8-15'/>");
    assert_contains(out, "<vcpupin vcpu='1' cpuset='24-31'/>");
    assert_contains(out, "<sibling id='1' value='20'/>");
    assert_contains(out, "<page size='2048' unit='KiB' nodeset='0-1'/>");
    assert_contains(out, "<topology sockets='2' dies='1' cores='2' threads='1'/>");
    assert_contains(out, "vcpus='0,2' cpus='8-15' memory-kib='2097152'");
    again = apply(d, t, p, &fixed_time);
    g_assert_cmpstr(out, ==, again);
}

/* The user's cells of different sizes go into the request one by one;
 * identical cells, and cells that leave a vCPU out, do not. */
static void
test_request_cell_sizes(void)
{
    static const gchar *const uneven =
        "<domain><name>u</name><memory unit='MiB'>768</memory><vcpu>10</vcpu><cpu><numa>"
        "<cell id='0' cpus='0-3' memory='512' unit='MiB'/><cell id='1' cpus='4-9' memory='256' "
        "unit='MiB'/>"
        "</numa></cpu></domain>";
    static const gchar *const even =
        "<domain><name>e</name><memory unit='MiB'>512</memory><vcpu>4</vcpu><cpu><numa>"
        "<cell id='0' cpus='0,2' memory='256' unit='MiB'/><cell id='1' cpus='1,3' memory='256' "
        "unit='MiB'/>"
        "</numa></cpu></domain>";
    static const gchar *const gap =
        "<domain><name>g</name><memory unit='MiB'>768</memory><vcpu>4</vcpu><cpu><numa>"
        "<cell id='0' cpus='0' memory='512' unit='MiB'/><cell id='1' cpus='1-2' memory='256' "
        "unit='MiB'/>"
        "</numa></cpu></domain>";
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = load_text(uneven, &error);
    g_autoptr(VnRequest) r = vn_domain_to_request(d, NULL, &error);

    g_assert_no_error(error);
    g_assert_cmpuint(r->cells, ==, 2);
    g_assert_nonnull(r->cell_sizes);
    g_assert_cmpuint(r->cell_sizes->len, ==, 2);
    g_assert_cmpuint(g_array_index(r->cell_sizes, VnCellSize, 0).vcpus, ==, 4);
    g_assert_cmpuint(g_array_index(r->cell_sizes, VnCellSize, 0).memory_kib, ==, 512 * 1024);
    g_assert_cmpuint(g_array_index(r->cell_sizes, VnCellSize, 1).vcpus, ==, 6);
    g_assert_cmpuint(g_array_index(r->cell_sizes, VnCellSize, 1).memory_kib, ==, 256 * 1024);
    for (guint i = 0; i < 2; i++) {
        g_autoptr(VnDomain) o = load_text(i ? gap : even, &error);
        g_autoptr(VnRequest) q = vn_domain_to_request(o, NULL, &error);
        g_assert_no_error(error);
        g_assert_cmpuint(q->cells, ==, 2);
        g_assert_null(q->cell_sizes);
    }
}

/* A dedicated VM with the user's uneven cells (4 + 6 vCPUs: not one node
 * of 8 CPUs) is placed, no longer refused: the cells stay as written, each
 * vCPU on a CPU of its own cell's node, sockets of 2 vCPUs so every cell
 * is whole sockets. */
static void
test_place_dedicated_uneven_cells(void)
{
    static const gchar *const xml =
        "<domain><name>u</name>"
        "<metadata><vnuma:vnuma xmlns:vnuma='http://vnuma.dev/xmlns/domain/1.0' manage='yes' "
        "dedicated='yes'/></metadata>"
        "<memory unit='MiB'>768</memory><vcpu>10</vcpu><cpu><numa>"
        "<cell id='0' cpus='0-3' memory='512' unit='MiB'/><cell id='1' cpus='4-9' memory='256' "
        "unit='MiB'/>"
        "</numa></cpu></domain>";
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnLoad) load = vn_load_new(t);
    g_autoptr(VnPolicy) policy = vn_policy_new_default(t);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = load_text(xml, &error);
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(VnPlacement) rec = NULL;
    g_autofree gchar *out = NULL;

    g_assert_no_error(error);
    {
        const VnEngineHost host = { .t = t, .load = load, .policy = policy };
        g_auto(VnEngineResult) res = { 0 };
        g_assert_true(vn_engine_run(d, &host, VN_ENGINE_PLAN, &fixed_time, &res, &error));
        p = g_steal_pointer(&res.placement);
    }
    g_assert_no_error(error);
    g_assert_nonnull(p);
    g_assert_true(p->dedicated);
    g_assert_cmpuint(p->cells->len, ==, 2);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).n_vcpus, ==, 4);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 1).n_vcpus, ==, 6);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node, !=,
                     g_array_index(p->cells, VnCell, 1).node);
    /* the domain's own vcpupins, read back */
    rec = vn_domain_recorded_placement(d, t, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(rec->vcpu_pins->len, ==, 10);
    for (guint v = 0; v < 10; v++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, v < 4 ? 0 : 1);
        const VnBitmap *pin = rec->vcpu_pins->pdata[v];
        g_assert_cmpuint(vn_bitmap_count(pin), ==, 1);
        g_assert_true(vn_bitmap_test(t->nodes[c->node].cpus, (guint)vn_bitmap_next(pin, -1)));
    }
    out = vn_domain_to_string(d);
    assert_contains(out, "<cell id='0' cpus='0-3' memory='512' unit='MiB'>");
    assert_contains(out, "<cell id='1' cpus='4-9' memory='256' unit='MiB'>");
    assert_contains(out, "<topology sockets='5' dies='1' cores='1' threads='2'/>");
}

static void
test_write_mismatch(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnDomain) d = load("web.xml");
    g_autoptr(VnPlacement) p = make_placement(t, 1, (const guint[]){ 1 }, 3, 4194304, 3);
    g_autoptr(GError) error = NULL;

    g_assert_false(vn_domain_apply_placement(d, t, p, &fixed_time, &error));
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_MISMATCH);
    g_test_message("%s", error->message);
}

static void
test_recorded_placement(void)
{
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(VnDomain) d = load("web.xml");
    g_autoptr(VnPlacement) p = make_placement(t, 2, (const guint[]){ 0, 2 }, 2, 2097152, 2);
    g_autofree gchar *out = apply(d, t, p, &fixed_time);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) r = NULL;
    const VnCell *c;

    g_assert_nonnull(out);
    r = vn_domain_recorded_placement(d, t, &error);
    g_assert_no_error(error);
    g_assert_nonnull(r);
    g_assert_cmpuint(r->cells->len, ==, 2);
    c = &g_array_index(r->cells, VnCell, 1);
    g_assert_cmpuint(c->node, ==, 2);
    g_assert_cmpuint(c->vcpu_first, ==, 2);
    g_assert_cmpuint(c->n_vcpus, ==, 2);
    g_assert_cmpuint(c->memory_kib, ==, 2097152);
    g_assert_cmpuint(r->vcpu_pins->len, ==, 4);
    g_assert_true(vn_bitmap_equal(r->vcpu_pins->pdata[3], t->nodes[2].cpus));
    g_assert_cmpuint(r->iothreads->len, ==, 2);
    g_assert_true(vn_bitmap_equal(r->emulator_cpus, t->nodes[0].cpus));
}

/* A recorded IOThread on CPUs this host does not have (a VM moved from a
 * larger host) is a mismatch like such a cell, not a GLib critical and a
 * truncated pin (found by fuzz-domain-xml). */
static void
test_recorded_iothread_off_host(void)
{
    static const gchar xml[] =
        "<domain><name>z</name><memory>1024</memory><vcpu>1</vcpu><iothreads>1</"
        "iothreads><metadata>"
        "<vnuma:vnuma xmlns:vnuma='http://vnuma.dev/xmlns/domain/1.0' manage='yes'>"
        "<vnuma:placement version='1' time='2026-01-01T00:00:00Z' memory-mode='strict'>"
        "<vnuma:cell id='0' node='0' vcpus='0' cpus='0' memory-kib='1024'/>"
        "<vnuma:iothread id='1' cpus='0,200'/>"
        "</vnuma:placement></vnuma:vnuma></metadata></domain>";
    g_autoptr(VnTopology) t = four_nodes();
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = load_text(xml, &error);

    g_assert_no_error(error);
    g_assert_null(vn_domain_recorded_placement(d, t, &error));
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_MISMATCH);
    g_assert_nonnull(strstr(error->message, "IOThread 1"));
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/domain/load/basic", test_load_basic);
    g_test_add_func("/domain/load/units", test_units);
    g_test_add_func("/domain/load/bad", test_bad_domains);
    g_test_add_func("/domain/load/missing-file", test_missing_file);
    g_test_add_func("/domain/hostile/billion-laughs", test_billion_laughs);
    g_test_add_func("/domain/hostile/external-entity", test_external_entity);
    g_test_add_func("/domain/hostile/too-large", test_too_large);
    g_test_add_func("/domain/hostile/nothing-read-outside", test_nothing_read_outside);
    g_test_add_func("/domain/request/devices", test_request);
    g_test_add_func("/domain/request/mixed-pages", test_request_mixed_pages);
    g_test_add_func("/domain/request/devices-sysfs", test_request_devices_sysfs);
    g_test_add_func("/domain/write/vhost-user", test_write_vhost_user);
    g_test_add_func("/domain/devices/vhost-queues", test_vhost_queues);
    g_test_add_func("/domain/write/dedicated-smt", test_write_dedicated_smt);
    g_test_add_func("/domain/write/cells-same-node", test_write_cells_same_node);
    g_test_add_func("/domain/metadata/parse", test_metadata_parse);
    g_test_add_func("/domain/metadata/roundtrip", test_metadata_roundtrip);
    g_test_add_func("/domain/metadata/manage-only", test_metadata_manage_only);
    g_test_add_func("/domain/write/one-cell", test_write_one_cell);
    g_test_add_func("/domain/write/two-cells", test_write_two_cells);
    g_test_add_func("/domain/write/keeps-bytes", test_write_keeps_bytes);
    g_test_add_func("/domain/write/idempotent", test_write_idempotent);
    g_test_add_func("/domain/write/moves", test_write_moves);
    g_test_add_func("/domain/write/handwritten", test_write_handwritten);
    g_test_add_func("/domain/pins/allowed-set", test_pins_allowed_set);
    g_test_add_func("/domain/write/allowed-set", test_write_allowed_set);
    g_test_add_func("/domain/write/hand-edited", test_write_hand_edited_after_vnuma);
    g_test_add_func("/domain/write/user-cells", test_write_user_cells);
    g_test_add_func("/domain/write/mismatch", test_write_mismatch);
    g_test_add_func("/domain/request/cell-sizes", test_request_cell_sizes);
    g_test_add_func("/domain/place/dedicated-uneven-cells", test_place_dedicated_uneven_cells);
    g_test_add_func("/domain/recorded-placement", test_recorded_placement);
    g_test_add_func("/domain/recorded-placement/iothread-off-host",
                    test_recorded_iothread_off_host);
    return g_test_run();
}
