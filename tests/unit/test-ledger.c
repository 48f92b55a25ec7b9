/* test-ledger.c: the ledger file, its accounting, its lock and its crash
 * safety, with real processes (this binary re-executed) for the last two. */
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "vn-ledger.h"
#include "vn-test-fixture.h"

/* 2 nodes x 4 CPUs (os ids 0-3, 4-7), 8 GiB each, distances 10/21. */
static VnTopology *
make_topology(void)
{
    VnTopology *t = vn_topology_new("test: 2 nodes");
    for (guint n = 0; n < 2; n++) {
        guint idx = vn_topology_add_node(t, n, 8 * 1024 * 1024);
        for (guint c = 0; c < 4; c++)
            vn_topology_add_cpu(t, n * 4 + c, idx, n * 4 + c, n);
    }
    vn_topology_set_distance(t, 0, 0, 10);
    vn_topology_set_distance(t, 1, 1, 10);
    vn_topology_set_distance(t, 0, 1, 21);
    vn_topology_set_distance(t, 1, 0, 21);
    g_assert_true(vn_topology_finish(t, NULL));
    return t;
}

static gchar *
make_state_dir(void)
{
    g_autoptr(GError) err = NULL;
    gchar *dir = g_dir_make_tmp("vn-ledger-XXXXXX", &err);
    g_assert_no_error(err);
    return dir;
}

static VnLedgerRecord *
make_record(const gchar *uuid, const gchar *name, guint node, const gchar *cpus, guint vcpus,
            guint64 mem_mib)
{
    VnLedgerRecord *r = vn_ledger_record_new(uuid, name);
    r->time = 1764450000;
    vn_ledger_record_add_cell(r, 0, node, vcpus, cpus, mem_mib * 1024);
    return r;
}

/* The ledger text of `generation` holding the records given (taken),
 * the list ended by NULL. */
static gchar *format_records(guint64 generation, ...) G_GNUC_NULL_TERMINATED;

static gchar *
format_records(guint64 generation, ...)
{
    g_autoptr(GPtrArray) recs =
        g_ptr_array_new_with_free_func((GDestroyNotify)vn_ledger_record_free);
    va_list ap;

    va_start(ap, generation);
    for (VnLedgerRecord *r; (r = va_arg(ap, VnLedgerRecord *));)
        g_ptr_array_add(recs, r);
    va_end(ap);
    return vn_ledger_format(recs, generation);
}

static void
test_round_trip(void)
{
    g_autofree gchar *dir = make_state_dir();
    g_autoptr(GError) err = NULL;
    {
        g_autoptr(VnLedger) l = vn_ledger_open(dir, &err);
        g_assert_no_error(err);
        g_assert_true(vn_ledger_was_missing(l));
        VnLedgerRecord *r = make_record("u-b", "vm-b", 1, "4-7", 4, 2048);
        r->state = VN_LEDGER_STATE_RUNNING;
        r->needs_apply = TRUE;
        r->dedicated = TRUE;
        r->priority = VN_PRIORITY_HIGH;
        r->hugepage_kib = 2048;
        vn_ledger_record_add_cell(r, 1, 0, 2, "0-1", 1024 * 1024);
        vn_ledger_put(l, r);
        vn_ledger_put(l, make_record("u-a", "vm-a", 0, "0-3", 2, 512));
        g_assert_true(vn_ledger_commit(l, &err));
        g_assert_no_error(err);
    }
    g_autoptr(VnLedger) s = vn_ledger_snapshot(dir, &err);
    g_assert_no_error(err);
    g_assert_false(vn_ledger_was_missing(s));
    g_assert_cmpuint(vn_ledger_generation(s), ==, 1);
    GPtrArray *recs = vn_ledger_records(s);
    g_assert_cmpuint(recs->len, ==, 2);
    VnLedgerRecord *a = g_ptr_array_index(recs, 0); /* sorted by name */
    VnLedgerRecord *b = vn_ledger_lookup(s, "u-b");
    g_assert_cmpstr(a->name, ==, "vm-a");
    g_assert_cmpint(a->state, ==, VN_LEDGER_STATE_RESERVED);
    g_assert_nonnull(b);
    g_assert_cmpstr(b->name, ==, "vm-b");
    g_assert_true(b->needs_apply && b->dedicated);
    g_assert_cmpint(b->priority, ==, VN_PRIORITY_HIGH);
    g_assert_cmpuint(b->hugepage_kib, ==, 2048);
    g_assert_cmpint(b->time, ==, 1764450000);
    g_assert_cmpuint(b->cells->len, ==, 2);
    VnLedgerCell *c = &g_array_index(b->cells, VnLedgerCell, 1);
    g_assert_cmpuint(c->id, ==, 1);
    g_assert_cmpuint(c->node_os_id, ==, 0);
    g_assert_cmpstr(c->cpus, ==, "0-1");
    g_assert_cmpuint(c->memory_kib, ==, 1024 * 1024);
    g_assert_cmpuint(vn_ledger_record_vcpus(b), ==, 6);
    g_autofree gchar *nodes = vn_ledger_record_nodes_string(b);
    g_assert_cmpstr(nodes, ==, "0,1");
    g_assert_true(vn_ledger_lookup_name(s, "vm-a") == a);
    vn_test_remove_tree(dir);
}

/* Each bad file gives VN_LEDGER_ERROR_CORRUPT naming the file. */
/* The writer leaves members at their default out; a ledger written before
 * (pretty, every member spelled out) still loads, to the same records. */
static void
test_defaults_left_out(void)
{
    g_autofree gchar *text = format_records(7, make_record("u-a", "vm-a", 0, "0-3", 2, 512), NULL);
    static const gchar *const left_out[] = { "needs_apply",  "dedicated", "priority",
                                             "hugepage_kib", "expires",   " " };
    for (guint i = 0; i < G_N_ELEMENTS(left_out); i++)
        g_assert_null(strstr(text, left_out[i]));
    static const gchar old[] =
        "{\n  \"version\" : 1,\n  \"generation\" : 7,\n  \"domains\" : [\n    {\n"
        "      \"uuid\" : \"u-a\",\n      \"name\" : \"vm-a\",\n"
        "      \"state\" : \"reserved\",\n      \"needs_apply\" : false,\n"
        "      \"dedicated\" : false,\n      \"priority\" : \"normal\",\n"
        "      \"hugepage_kib\" : 0,\n      \"time\" : 1764450000,\n"
        "      \"cells\" : [\n        { \"id\" : 0, \"node\" : 0, \"cpus\" : \"0-3\", "
        "\"vcpus\" : 2, \"memory_kib\" : 524288 }\n      ]\n    }\n  ]\n}\n";
    const gchar *const texts[] = { text, old };
    for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
        g_autoptr(GPtrArray) back = NULL;
        g_autoptr(GError) err = NULL;
        guint64 gen = 0;
        g_assert_true(vn_ledger_parse(texts[i], strlen(texts[i]), "test", &back, &gen, &err));
        g_assert_no_error(err);
        g_assert_cmpuint(gen, ==, 7);
        g_autofree gchar *again = vn_ledger_format(back, gen);
        g_assert_cmpstr(again, ==, text);
    }
}

/* A ledger opened for a change writes unchanged records back from their
 * parsed objects: a record changed in place, or replaced, must still be
 * written as it is now. */
static void
test_changed_in_place(void)
{
    g_autofree gchar *dir = make_state_dir();
    g_autoptr(GError) err = NULL;
    for (guint round = 0; round < 3; round++) {
        g_autoptr(VnLedger) l = vn_ledger_open(dir, &err);
        g_assert_no_error(err);
        if (round == 0) {
            vn_ledger_put(l, make_record("u-a", "vm-a", 0, "0-3", 2, 512));
            vn_ledger_put(l, make_record("u-b", "vm-b", 1, "4-7", 2, 512));
        } else if (round == 1) {
            VnLedgerRecord *a = vn_ledger_lookup(l, "u-a");
            a->needs_apply = TRUE;
            g_array_index(a->cells, VnLedgerCell, 0).memory_kib = 1024;
        } else {
            vn_ledger_remove(l, "u-b");
            vn_ledger_put(l, make_record("u-b", "vm-b", 0, "0-1", 1, 256));
        }
        g_assert_true(vn_ledger_commit(l, &err));
        g_assert_no_error(err);
    }
    g_autoptr(VnLedger) s = vn_ledger_snapshot(dir, &err);
    g_assert_no_error(err);
    VnLedgerRecord *a = vn_ledger_lookup(s, "u-a"), *b = vn_ledger_lookup(s, "u-b");
    g_assert_true(a->needs_apply);
    g_assert_cmpuint(g_array_index(a->cells, VnLedgerCell, 0).memory_kib, ==, 1024);
    g_assert_cmpstr(g_array_index(b->cells, VnLedgerCell, 0).cpus, ==, "0-1");
    g_assert_cmpuint(g_array_index(b->cells, VnLedgerCell, 0).memory_kib, ==, 256 * 1024);
    g_assert_cmpuint(vn_ledger_generation(s), ==, 3);
    g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", dir);
    g_assert_cmpint(system(cmd), ==, 0);
}

static void
test_bad_files(void)
{
    static const gchar *const bad[] = {
        "",
        "not json",
        "{\"version\": 1, \"generation\": 1",
        "[]",
        "{\"version\": 2, \"generation\": 1, \"domains\": []}",
        "{\"version\": 1, \"generation\": 1, \"domains\": [], \"extra\": 1}",
        "{\"version\": 1, \"generation\": -1, \"domains\": []}",
        "{\"version\": 1, \"generation\": 1, \"domains\": {}}",
        "{\"version\": 1, \"generation\": 1, \"domains\": [1]}",
        "{\"version\": 1, \"generation\": 1, \"domains\": [{\"uuid\": \"u\"}]}",
        "{\"version\": 1, \"generation\": 1, \"domains\": [{\"uuid\": \"u\", \"name\": \"n\","
        " \"state\": \"zombie\", \"needs_apply\": false, \"dedicated\": false,"
        " \"priority\": \"normal\", \"hugepage_kib\": 0, \"time\": 0, \"cells\": []}]}",
        "{\"version\": 1, \"generation\": 1, \"domains\": [{\"uuid\": \"u\", \"name\": \"n\","
        " \"state\": \"running\", \"needs_apply\": 0, \"dedicated\": false,"
        " \"priority\": \"normal\", \"hugepage_kib\": 0, \"time\": 0, \"cells\": []}]}",
        "{\"version\": 1, \"generation\": 1, \"domains\": [{\"uuid\": \"u\", \"name\": \"n\","
        " \"state\": \"running\", \"needs_apply\": false, \"dedicated\": false,"
        " \"priority\": \"normal\", \"hugepage_kib\": 0, \"time\": 0,"
        " \"cells\": [{\"id\": 0, \"node\": \"x\", \"cpus\": \"0\", \"vcpus\": 1, \"memory_kib\": "
        "1}]}]}",
        "{\"version\": 1, \"generation\": 1, \"domains\": [{\"uuid\": \"u\", \"name\": \"n\","
        " \"state\": \"running\", \"time\": 0, \"allowed_cpus\": \"4-\", \"cells\": []}]}",
        "{\"version\": 1, \"generation\": 1, \"domains\": [{\"uuid\": \"u\", \"name\": \"n\","
        " \"state\": \"running\", \"time\": 0, \"allowed_cpus\": 4, \"cells\": []}]}",
    };
    g_autofree gchar *dir = make_state_dir();
    g_autofree gchar *path = g_build_filename(dir, "ledger.json", NULL);
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(GError) err = NULL;
        g_assert_true(g_file_set_contents(path, bad[i], -1, NULL));
        g_autoptr(VnLedger) l = vn_ledger_open(dir, &err);
        g_assert_null(l);
        g_assert_error(err, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT);
        g_assert_nonnull(strstr(err->message, path));
        g_assert_null(strchr(err->message, '\n'));
    }
    /* Starting over is possible, and the lock was released. */
    g_autoptr(GError) err = NULL;
    g_autoptr(VnLedger) l = vn_ledger_open_fresh(dir, &err);
    g_assert_no_error(err);
    g_assert_true(vn_ledger_commit(l, &err));
    g_clear_pointer(&l, vn_ledger_free);
    l = vn_ledger_open(dir, &err);
    g_assert_no_error(err);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, 0);
    g_clear_pointer(&l, vn_ledger_free);
    vn_test_remove_tree(dir);
}

/* vn_ledger_open_setting_aside(): a good or missing file is opened as
 * usual; a corrupt one is renamed (a second one at the same second next
 * to the first, not over it), named in the notice with its reason, and
 * the ledger starts empty as if missing. */
static void
test_set_aside(void)
{
    g_autofree gchar *dir = make_state_dir();
    g_autofree gchar *path = g_build_filename(dir, "ledger.json", NULL);
    g_autofree gchar *first = g_strconcat(path, ".corrupt-1000", NULL);
    g_autofree gchar *second = g_strconcat(path, ".corrupt-1000.1", NULL);
    g_autoptr(GError) err = NULL;
    gchar *notice = (gchar *)"unset";

    g_autoptr(VnLedger) l = vn_ledger_open_setting_aside(dir, 1000, &notice, &err);
    g_assert_no_error(err);
    g_assert_null(notice);
    g_assert_true(vn_ledger_was_missing(l));
    g_assert_true(vn_ledger_commit(l, &err));
    g_clear_pointer(&l, vn_ledger_free);
    l = vn_ledger_open_setting_aside(dir, 1000, &notice, &err);
    g_assert_no_error(err);
    g_assert_null(notice);
    g_assert_false(vn_ledger_was_missing(l));
    g_clear_pointer(&l, vn_ledger_free);

    static const gchar *const bad[] = { "[[[[",
                                        "{\"version\":1,\"generation\":1,\"domains\":[]} 1" };
    static const gchar *const reason[] = { "not JSON: ",
                                           "trailing data after the JSON value at byte offset 42" };
    const gchar *aside[] = { first, second };
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_assert_true(g_file_set_contents(path, bad[i], -1, NULL));
        l = vn_ledger_open_setting_aside(dir, 1000, &notice, &err);
        g_assert_no_error(err);
        g_assert_true(vn_ledger_was_missing(l));
        g_assert_cmpuint(vn_ledger_records(l)->len, ==, 0);
        g_autofree gchar *expected_start = g_strdup_printf("%s: %s", path, reason[i]);
        g_autofree gchar *expected_end = g_strdup_printf("; set aside as %s", aside[i]);
        if (!g_str_has_prefix(notice, expected_start))
            g_error("notice \"%s\" does not start with \"%s\"", notice, expected_start);
        g_assert_true(g_str_has_suffix(notice, expected_end));
        g_assert_null(strchr(notice, '\n'));
        g_clear_pointer(&notice, g_free);
        g_autofree gchar *kept = NULL;
        g_assert_true(g_file_get_contents(aside[i], &kept, NULL, NULL));
        g_assert_cmpstr(kept, ==, bad[i]);
        g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
        g_clear_pointer(&l, vn_ledger_free);
    }
    vn_test_remove_tree(dir);
}

/* A stuck holder makes the next opener give up, not hang. */
static void
test_lock_timeout(void)
{
    g_autofree gchar *dir = make_state_dir();
    g_autoptr(GError) err = NULL;
    g_autoptr(VnLedger) holder = vn_ledger_open(dir, &err);
    g_assert_no_error(err);
    gint64 t0 = g_get_monotonic_time();
    g_autoptr(VnLedger) second = vn_ledger_open_with_timeout(dir, 200, &err);
    gint64 waited_ms = (g_get_monotonic_time() - t0) / 1000;
    g_assert_null(second);
    g_assert_error(err, VN_LEDGER_ERROR, VN_LEDGER_ERROR_LOCK);
    g_assert_nonnull(strstr(err->message, "still held by another process after 200 ms"));
    g_assert_cmpint(waited_ms, >=, 200);
    g_assert_cmpint(waited_ms, <, 5000);
    g_clear_error(&err);
    g_clear_pointer(&holder, vn_ledger_free);
    second = vn_ledger_open_with_timeout(dir, 200, &err); /* released: at once */
    g_assert_no_error(err);
    g_clear_pointer(&second, vn_ledger_free);
    vn_test_remove_tree(dir);
}

static void
test_duplicate_uuid(void)
{
    g_autofree gchar *text = format_records(3, make_record("u", "a", 0, "0", 1, 64),
                                            make_record("u", "b", 0, "0", 1, 64), NULL);
    GPtrArray *out = NULL;
    guint64 gen = 0;
    g_autoptr(GError) err = NULL;
    g_assert_false(vn_ledger_parse(text, strlen(text), "x", &out, &gen, &err));
    g_assert_error(err, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT);
    g_assert_null(out);
}

static void
test_to_load(void)
{
    g_autoptr(VnTopology) t = make_topology();
    g_autoptr(VnPolicy) pol = vn_policy_new_default(t);
    g_autofree gchar *dir = make_state_dir();
    g_autoptr(VnLedger) l = vn_ledger_open(dir, NULL);
    vn_ledger_put(l, make_record("u1", "shared", 0, "0-3", 2, 1024));
    VnLedgerRecord *d = make_record("u2", "dedicated", 1, "4-5", 2, 1024);
    d->dedicated = TRUE;
    d->priority = VN_PRIORITY_HIGH;
    vn_ledger_put(l, d);
    vn_ledger_put(l, make_record("u3", "elsewhere", 7, "0", 1, 1024));
    g_autoptr(VnLoad) load = vn_load_new(t);
    vn_ledger_to_load(l, t, pol, NULL, load);
    guint64 charge = 1024 * 1024 + vn_policy_overhead_kib(pol, 1024 * 1024);
    g_assert_cmpuint(load->nodes[0].committed_vcpus, ==, 2);
    g_assert_cmpuint(load->nodes[0].committed_memory_kib, ==, charge);
    g_assert_cmpuint(load->nodes[1].committed_vcpus, ==, 0);
    g_assert_cmpuint(load->nodes[1].committed_high_vcpus, ==, 2);
    g_assert_cmpuint(load->nodes[1].committed_memory_kib, ==, charge);
    g_assert_cmpuint(vn_bitmap_count(load->dedicated_cpus), ==, 2);
    g_assert_true(vn_bitmap_test(load->dedicated_cpus, 4));

    g_autoptr(VnLoad) others = vn_load_new(t);
    vn_ledger_to_load(l, t, pol, "u1", others);
    g_assert_cmpuint(others->nodes[0].committed_memory_kib, ==, 0);
    vn_test_remove_tree(dir);
}

static void
assert_refused(const VnLedgerRecord *r, const VnTopology *t, const VnLoad *load,
               const VnPolicy *pol, const gchar *expect)
{
    g_autofree gchar *why = NULL;
    g_assert_false(vn_ledger_record_fits(r, t, load, pol, &why));
    g_assert_nonnull(why);
    if (!strstr(why, expect))
        g_error("reason \"%s\" lacks \"%s\"", why, expect);
}

static void
test_fits(void)
{
    g_autoptr(VnTopology) t = make_topology();
    g_autoptr(VnPolicy) pol = vn_policy_new_default(t);
    g_autoptr(VnLoad) load = vn_load_new(t);
    g_autoptr(VnLedgerRecord) ok = make_record("u", "ok", 1, "4-7", 4, 4096);
    g_assert_true(vn_ledger_record_fits(ok, t, load, pol, NULL));

    g_autoptr(VnLedgerRecord) big = make_record("u", "big", 0, "0-3", 2, 8192);
    assert_refused(big, t, load, pol, "node 0: ");
    g_autoptr(VnLedgerRecord) gone = make_record("u", "gone", 5, "0", 1, 64);
    assert_refused(gone, t, load, pol, "node 5 does not exist");
    g_autoptr(VnLedgerRecord) cpu = make_record("u", "cpu", 0, "9", 1, 64);
    assert_refused(cpu, t, load, pol, "CPUs \"9\"");
    g_autoptr(VnLedgerRecord) many = make_record("u", "many", 0, "0-3", 17, 64);
    assert_refused(many, t, load, pol, "shared vCPUs");

    /* Two cells on one node add up. */
    g_autoptr(VnLedgerRecord) two = make_record("u", "two", 0, "0-3", 2, 4096);
    vn_ledger_record_add_cell(two, 1, 0, 2, "0-3", 4096 * 1024);
    assert_refused(two, t, load, pol, "cell 1 needs");

    g_autoptr(VnLedgerRecord) ded = make_record("u", "ded", 1, "4-5", 2, 64);
    ded->dedicated = TRUE;
    vn_bitmap_set(load->dedicated_cpus, 5);
    assert_refused(ded, t, load, pol, "dedicated to another domain");

    /* A shared placement recorded before CPU 4 was reserved for the host
     * no longer fits (and the hook re-plans it). */
    g_autoptr(VnLedgerRecord) shared = make_record("u", "shared", 1, "4,6-7", 2, 64);
    g_assert_true(vn_ledger_record_fits(shared, t, load, pol, NULL));
    vn_bitmap_set(pol->reserved_cpus, 4);
    assert_refused(shared, t, load, pol, "reserved for the host");
}

static void
test_reclaim(void)
{
    g_autofree gchar *dir = make_state_dir();
    g_autofree gchar *run = make_state_dir();
    g_autofree gchar *status = g_build_filename(run, "alive.xml", NULL);
    g_assert_true(g_file_set_contents(status, "<domstatus/>", -1, NULL));
    g_autoptr(VnLedger) l = vn_ledger_open(dir, NULL);
    VnLedgerRecord *r = make_record("1", "alive", 0, "0", 1, 64);
    r->state = VN_LEDGER_STATE_RUNNING;
    vn_ledger_put(l, r);
    r = make_record("2", "dead", 0, "0", 1, 64);
    r->state = VN_LEDGER_STATE_RUNNING;
    vn_ledger_put(l, r);
    r = make_record("3", "starting", 0, "0", 1, 64);
    r->time = 1000;
    vn_ledger_put(l, r);
    r = make_record("4", "stuck", 0, "0", 1, 64);
    r->time = 500;
    vn_ledger_put(l, r);
    g_autoptr(GPtrArray) removed = NULL;
    g_assert_cmpuint(vn_ledger_reclaim(l, run, 1100, 300, &removed), ==, 2);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, 2);
    g_assert_nonnull(vn_ledger_lookup_name(l, "alive"));
    g_assert_nonnull(vn_ledger_lookup_name(l, "starting"));
    g_assert_true(g_ptr_array_find_with_equal_func(removed, "dead", g_str_equal, NULL));
    vn_test_remove_tree(dir);
    vn_test_remove_tree(run);
}

/* --- real processes ---
 * Children are this binary re-executed (argv[0] --child-...), so they are
 * separate programs with their own lock fds, and run natively when the test
 * itself runs under valgrind. */

static const gchar *self_path;

static GPid
spawn_child(const gchar *mode, const gchar *dir, guint i)
{
    g_autofree gchar *num = g_strdup_printf("%u", i);
    const gchar *argv[] = { self_path, mode, dir, num, NULL };
    g_autoptr(GError) err = NULL;
    GPid pid = 0;
    g_spawn_async(NULL, (gchar **)argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &err);
    g_assert_no_error(err);
    return pid;
}

#define N_CONCURRENT 50
#define VM_MIB 1024

/* Child: plan (least committed node) + check + reserve, one transaction.
 * Exit 10 reserved, 11 refused (no room), 12 error. */
static int
child_reserve(const gchar *dir, guint i)
{
    g_autoptr(VnTopology) t = make_topology();
    g_autoptr(VnPolicy) pol = vn_policy_new_default(t);
    g_autoptr(VnLedger) l = vn_ledger_open(dir, NULL);
    if (!l)
        return 12;
    g_autoptr(VnLoad) load = vn_load_new(t);
    vn_ledger_to_load(l, t, pol, NULL, load);
    guint node = load->nodes[1].committed_memory_kib < load->nodes[0].committed_memory_kib;
    g_autofree gchar *uuid = g_strdup_printf("uuid-%u", i);
    g_autofree gchar *name = g_strdup_printf("vm-%02u", i);
    g_autoptr(VnLedgerRecord) r = make_record(uuid, name, node, node ? "4-7" : "0-3", 2, VM_MIB);
    if (!vn_ledger_record_fits(r, t, load, pol, NULL))
        return 11;
    g_usleep(g_random_int_range(0, 2000)); /* widen the race window */
    vn_ledger_put(l, g_steal_pointer(&r));
    return vn_ledger_commit(l, NULL) ? 10 : 12;
}

static void
test_concurrent_reservations(void)
{
    g_autofree gchar *dir = make_state_dir();
    GPid pids[N_CONCURRENT];
    for (guint i = 0; i < N_CONCURRENT; i++)
        pids[i] = spawn_child("--child-reserve", dir, i);
    guint reserved = 0, refused = 0;
    for (guint i = 0; i < N_CONCURRENT; i++) {
        int status;
        g_assert_cmpint(waitpid(pids[i], &status, 0), ==, pids[i]);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), >=, 10);
        g_assert_cmpint(WEXITSTATUS(status), <=, 11);
        reserved += WEXITSTATUS(status) == 10;
        refused += WEXITSTATUS(status) == 11;
    }
    g_autoptr(VnTopology) t = make_topology();
    g_autoptr(VnPolicy) pol = vn_policy_new_default(t);
    guint64 charge = VM_MIB * 1024 + vn_policy_overhead_kib(pol, VM_MIB * 1024);
    guint64 usable = 8 * 1024 * 1024 - 8 * 1024 * 1024 / 100 * pol->headroom_percent;
    guint per_node = usable / charge;
    g_assert_cmpuint(reserved, ==, 2 * per_node); /* every slot used once */
    g_assert_cmpuint(refused, ==, N_CONCURRENT - 2 * per_node);

    g_autoptr(VnLedger) l = vn_ledger_snapshot(dir, NULL);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, reserved); /* no lost update */
    g_assert_cmpuint(vn_ledger_generation(l), ==, reserved);
    g_autoptr(VnLoad) load = vn_load_new(t);
    vn_ledger_to_load(l, t, pol, NULL, load);
    for (guint n = 0; n < 2; n++)
        g_assert_cmpuint(load->nodes[n].committed_memory_kib, <=, usable);
    vn_test_remove_tree(dir);
}

/* Child: commits forever, each time with one more record. */
static int
child_write_forever(const gchar *dir)
{
    g_autoptr(VnLedger) l = vn_ledger_open(dir, NULL);
    for (guint i = 0;; i++) {
        g_autofree gchar *uuid = g_strdup_printf("u-%u", i % 300);
        vn_ledger_put(l, make_record(uuid, uuid, i % 2, "0-3", 1, 64));
        if (!vn_ledger_commit(l, NULL))
            return 12;
    }
}

static void
test_kill_during_writes(void)
{
    g_autofree gchar *dir = make_state_dir();
    guint64 last_generation = 0;
    for (guint round = 0; round < 200; round++) {
        GPid pid = spawn_child("--child-write", dir, round);
        /* the kill lands somewhere in the writes after the child's first
         * commit of this round, however slowly it starts (sanitizers,
         * valgrind, a loaded machine) */
        gint64 deadline = g_get_monotonic_time() + 30 * G_USEC_PER_SEC;
        for (;;) {
            g_autoptr(VnLedger) seen = vn_ledger_snapshot(dir, NULL);
            if (seen && vn_ledger_generation(seen) > last_generation)
                break;
            g_assert_cmpint(g_get_monotonic_time(), <, deadline);
            g_usleep(1000);
        }
        g_usleep(g_random_int_range(0, 5000));
        kill(pid, SIGKILL);
        int status;
        g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
        g_assert_true(WIFSIGNALED(status));
        g_autoptr(GError) err = NULL;
        g_autoptr(VnLedger) l = vn_ledger_open(dir, &err); /* lock free again */
        g_assert_no_error(err);
        g_assert_cmpuint(vn_ledger_generation(l), >, last_generation);
        last_generation = vn_ledger_generation(l);
    }
    g_assert_cmpuint(last_generation, >, 0);
    vn_test_remove_tree(dir);
}

int
main(int argc, char **argv)
{
    if (argc == 4 && g_str_equal(argv[1], "--child-reserve"))
        return child_reserve(argv[2], (guint)g_ascii_strtoull(argv[3], NULL, 10));
    if (argc == 4 && g_str_equal(argv[1], "--child-write"))
        return child_write_forever(argv[2]);
    self_path = argv[0];
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ledger/round-trip", test_round_trip);
    g_test_add_func("/ledger/defaults-left-out", test_defaults_left_out);
    g_test_add_func("/ledger/changed-in-place", test_changed_in_place);
    g_test_add_func("/ledger/bad-files", test_bad_files);
    g_test_add_func("/ledger/duplicate-uuid", test_duplicate_uuid);
    g_test_add_func("/ledger/set-aside", test_set_aside);
    g_test_add_func("/ledger/lock-timeout", test_lock_timeout);
    g_test_add_func("/ledger/to-load", test_to_load);
    g_test_add_func("/ledger/fits", test_fits);
    g_test_add_func("/ledger/reclaim", test_reclaim);
    g_test_add_func("/ledger/concurrent-reservations", test_concurrent_reservations);
    g_test_add_func("/ledger/kill-during-writes", test_kill_during_writes);
    return g_test_run();
}
