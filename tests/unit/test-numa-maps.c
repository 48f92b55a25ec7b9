/* test-numa-maps.c: /proc/<pid>/numa_maps parsing, pid files, locality
 * (vn-numa-maps.h) and the ledger's reservation expiry (vn-ledger.h). */
#include <glib/gstdio.h>
#include <string.h>
#include "vn-ledger.h"
#include "vn-numa-maps.h"
#include "vn-test-fixture.h"

static gchar *
fixture(const gchar *name)
{
    g_autofree gchar *path = g_build_filename(g_getenv("VN_TEST_DATA"), "numa-maps", name, NULL);
    gchar *text = NULL;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    return text;
}

/* Pages x page size per node; a mapping with no pages adds nothing. */
static void
test_parse_two_nodes(void)
{
    g_autofree gchar *text = fixture("qemu-two-node.txt");
    g_autoptr(GError) error = NULL;
    g_autoptr(VnNumaUsage) u = vn_numa_maps_parse(text, "qemu-two-node.txt", &error);
    g_autoptr(GArray) nodes = g_array_new(FALSE, FALSE, sizeof(guint));
    guint n0 = 0;

    g_assert_no_error(error);
    g_assert_cmpuint(u->n_nodes, ==, 2);
    g_assert_cmpuint(vn_numa_usage_node_kib(u, 0), ==, (900 + 12 + 655360) * 4);
    g_assert_cmpuint(vn_numa_usage_node_kib(u, 1), ==, (131072 + 33) * 4 + 2 * 1048576);
    g_assert_cmpuint(vn_numa_usage_node_kib(u, 7), ==, 0);
    g_assert_cmpuint(u->total_kib, ==, vn_numa_usage_node_kib(u, 0) + vn_numa_usage_node_kib(u, 1));
    g_array_append_val(nodes, n0);
    g_assert_cmpfloat_with_epsilon(vn_numa_usage_locality(u, nodes),
                                   (gdouble)vn_numa_usage_node_kib(u, 0) / u->total_kib, 1e-12);
}

static void
test_parse_empty(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnNumaUsage) u = vn_numa_maps_parse("", "empty", &error);
    g_autoptr(GArray) nodes = g_array_new(FALSE, FALSE, sizeof(guint));

    g_assert_no_error(error);
    g_assert_cmpuint(u->total_kib, ==, 0);
    g_assert_cmpfloat(vn_numa_usage_locality(u, nodes), <, 0.0);
}

static void
test_parse_bad(gconstpointer name)
{
    g_autofree gchar *text = fixture(name);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnNumaUsage) u = vn_numa_maps_parse(text, name, &error);

    g_assert_null(u);
    g_assert_error(error, VN_NUMA_MAPS_ERROR, VN_NUMA_MAPS_ERROR_PARSE);
    g_assert_true(g_str_has_prefix(error->message, name));
    g_assert_nonnull(strstr(error->message, ":1:"));
}

/* A sysroot with libvirt's pid file and the process's numa_maps. */
static void
test_read_sysroot(void)
{
    g_autofree gchar *root = g_dir_make_tmp("vn-numa-maps-XXXXXX", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnNumaUsage) u = NULL;
    gint64 pid = 0;

    g_free(vn_test_write_file(root, "run/libvirt/qemu/vm1.pid", "77\n"));
    g_free(vn_test_write_file(root, "run/libvirt/qemu/vm2.pid", "seventy\n"));
    g_free(vn_test_write_file(root, "proc/77/numa_maps",
                              "7f00 default anon=2 N3=2 kernelpagesize_kB=4\n"));

    g_assert_true(vn_numa_maps_domain_pid(root, "/run/libvirt/qemu", "vm1", &pid, &error));
    g_assert_no_error(error);
    g_assert_cmpint(pid, ==, 77);
    u = vn_numa_maps_read(root, pid, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(vn_numa_usage_node_kib(u, 3), ==, 8);

    g_assert_false(vn_numa_maps_domain_pid(root, "/run/libvirt/qemu", "vm2", &pid, &error));
    g_assert_error(error, VN_NUMA_MAPS_ERROR, VN_NUMA_MAPS_ERROR_READ);
    g_clear_error(&error);
    g_assert_false(vn_numa_maps_domain_pid(root, "/run/libvirt/qemu", "vm3", &pid, &error));
    g_assert_error(error, VN_NUMA_MAPS_ERROR, VN_NUMA_MAPS_ERROR_READ);
    g_clear_error(&error);
    g_assert_false(vn_numa_maps_domain_pid(root, "/run/libvirt/qemu", "../x", &pid, &error));
    g_assert_error(error, VN_NUMA_MAPS_ERROR, VN_NUMA_MAPS_ERROR_READ);
    g_clear_error(&error);
    g_assert_null(vn_numa_maps_read(root, 78, &error));
    g_assert_error(error, VN_NUMA_MAPS_ERROR, VN_NUMA_MAPS_ERROR_READ);

    vn_test_remove_tree(root);
}

/* `expires` round-trips through the file, is absent when 0, and only
 * lapsed records go. */
static void
test_ledger_expires(void)
{
    g_autoptr(GPtrArray) recs =
        g_ptr_array_new_with_free_func((GDestroyNotify)vn_ledger_record_free);
    g_autoptr(GPtrArray) back = NULL;
    g_autoptr(GError) error = NULL;
    g_autofree gchar *text = NULL;
    VnLedgerRecord *a = vn_ledger_record_new("reservation:a", "a");
    VnLedgerRecord *b = vn_ledger_record_new("uuid-b", "b");
    guint64 gen;

    a->expires = 1000;
    vn_ledger_record_add_cell(a, 0, 1, 2, "0-1", 1024);
    g_ptr_array_add(recs, a);
    g_ptr_array_add(recs, b);
    text = vn_ledger_format(recs, 3);
    g_assert_nonnull(strstr(text, "\"expires\":1000"));
    g_assert_cmpint(g_strstr_len(text, -1, "expires") - text, ==,
                    g_strrstr(text, "expires") - text);
    g_assert_true(vn_ledger_parse(text, strlen(text), "test", &back, &gen, &error));
    g_assert_no_error(error);
    g_assert_cmpint(((VnLedgerRecord *)g_ptr_array_index(back, 0))->expires, ==, 1000);
    g_assert_cmpint(((VnLedgerRecord *)g_ptr_array_index(back, 1))->expires, ==, 0);
    {
        g_autoptr(VnLedgerRecord) c = vn_ledger_record_copy(a);
        g_assert_cmpint(c->expires, ==, 1000);
    }
}

/* A reservation's hold on the ledger, expiring at `expires`. */
static void
put_hold(VnLedger *l, const gchar *uuid, const gchar *name, gint64 expires)
{
    VnLedgerRecord *r = vn_ledger_record_new(uuid, name);

    r->expires = expires;
    vn_ledger_put(l, r);
}

static void
test_ledger_reclaim_expired(void)
{
    g_autofree gchar *dir = g_dir_make_tmp("vn-ledger-exp-XXXXXX", NULL);
    g_autofree gchar *run = g_build_filename(dir, "run", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnLedger) l = vn_ledger_open(dir, &error);
    g_autoptr(GPtrArray) removed = NULL;
    VnLedgerRecord *r;

    g_assert_no_error(error);
    put_hold(l, "reservation:old", "old", 100);
    put_hold(l, "reservation:new", "new", 300);
    r = vn_ledger_record_new("plain", "plain");
    r->state = VN_LEDGER_STATE_RUNNING;
    vn_ledger_put(l, r);
    g_assert_cmpuint(vn_ledger_reclaim_expired(l, 200, &removed), ==, 1);
    g_assert_cmpstr(g_ptr_array_index(removed, 0), ==, "old");
    g_assert_nonnull(vn_ledger_lookup(l, "plain"));
    /* the hook's reclaim keeps an unexpired hold without a status file and
     * drops the running record that has none */
    g_assert_cmpuint(vn_ledger_reclaim(l, run, 200, 0, NULL), ==, 1);
    g_assert_nonnull(vn_ledger_lookup(l, "reservation:new"));
    g_assert_cmpuint(vn_ledger_reclaim(l, run, 300, 0, NULL), ==, 1);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, 0);
}

static void
test_ledger_take_reservation(void)
{
    g_autofree gchar *dir = g_dir_make_tmp("vn-ledger-take-XXXXXX", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnLedger) l = vn_ledger_open(dir, &error);
    g_autoptr(VnLedgerRecord) held = NULL;

    g_assert_no_error(error);
    put_hold(l, "reservation:1", "vm1", 500);
    put_hold(l, "reservation:2", "vm2", 100);
    vn_ledger_put(l, vn_ledger_record_new("uuid-vm3", "vm3"));

    held = vn_ledger_take_reservation(l, "vm1", 200);
    g_assert_nonnull(held);
    g_assert_cmpstr(held->uuid, ==, "reservation:1");
    g_assert_null(vn_ledger_lookup(l, "reservation:1"));
    /* lapsed: removed, not returned */
    g_assert_null(vn_ledger_take_reservation(l, "vm2", 200));
    g_assert_null(vn_ledger_lookup(l, "reservation:2"));
    /* a running VM's own record is no reservation */
    g_assert_null(vn_ledger_take_reservation(l, "vm3", 200));
    g_assert_nonnull(vn_ledger_lookup(l, "uuid-vm3"));
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/numa-maps/parse/two-nodes", test_parse_two_nodes);
    g_test_add_func("/numa-maps/parse/empty", test_parse_empty);
    g_test_add_data_func("/numa-maps/parse/bad-address", "bad-address.txt", test_parse_bad);
    g_test_add_data_func("/numa-maps/parse/bad-node", "bad-node.txt", test_parse_bad);
    g_test_add_func("/numa-maps/read/sysroot", test_read_sysroot);
    g_test_add_func("/ledger/expires/round-trip", test_ledger_expires);
    g_test_add_func("/ledger/expires/reclaim", test_ledger_reclaim_expired);
    g_test_add_func("/ledger/expires/take-reservation", test_ledger_take_reservation);
    return g_test_run();
}
