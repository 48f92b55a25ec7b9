/* vn-domain-cputune.c: <vcpu> and the pins of <cputune>, checked and
 * written.
 *
 * A pin is vnuma's when the recorded placement accounts for it: a vcpupin
 * inside its cell's CPUs, the emulatorpin and iothreadpins equal to the
 * recorded ones.  Anything else (including libvirt's '^' exclusions, which
 * vnuma never writes) is hand-written.  Other cputune children (shares,
 * period, quota, *sched, cachetune, memorytune) are never touched.
 */
#include "vn-domain-private.h"
#include "vn-cpulist.h"

#define PIN_BITS VN_DOMAIN_CPUSET_BITS

static gboolean
pin_equals(xmlNode *pin, const VnBitmap *want)
{
    g_autofree gchar *s = vn_xml_prop(pin, "cpuset");
    g_autoptr(VnBitmap) b = s ? vn_cpulist_parse(s, PIN_BITS, NULL) : NULL;

    return b && want && vn_bitmap_equal(b, want);
}

static gboolean
vcpupin_owned(xmlNode *pin, const VnDomainMetadata *m)
{
    g_autofree gchar *v = vn_xml_prop(pin, "vcpu");
    g_autofree gchar *s = vn_xml_prop(pin, "cpuset");
    g_autoptr(VnBitmap) b = s ? vn_cpulist_parse(s, PIN_BITS, NULL) : NULL;
    guint64 vcpu;

    if (!b || !vn_domain_parse_uint(v, PIN_BITS - 1, "vcpu", &vcpu, NULL))
        return FALSE;
    /* interleaved: every vCPU floats over the CPUs of all the cells */
    if (m->interleave) {
        g_autoptr(VnBitmap) rest = vn_bitmap_copy(b);
        for (guint i = 0; i < m->cells->len; i++)
            vn_bitmap_and_not(rest, g_array_index(m->cells, VnDomainMetaCell, i).cpus);
        return !vn_bitmap_is_empty(b) && vn_bitmap_is_empty(rest);
    }
    for (guint i = 0; i < m->cells->len; i++) {
        const VnDomainMetaCell *c = &g_array_index(m->cells, VnDomainMetaCell, i);
        if (vcpu < c->vcpus->n_bits && vn_bitmap_test(c->vcpus, (guint)vcpu)) {
            g_autoptr(VnBitmap) rest = vn_bitmap_copy(b);
            vn_bitmap_and_not(rest, c->cpus);
            return !vn_bitmap_is_empty(b) && vn_bitmap_is_empty(rest);
        }
    }
    return FALSE;
}

static gboolean
iothreadpin_owned(xmlNode *pin, const VnDomainMetadata *m)
{
    g_autofree gchar *v = vn_xml_prop(pin, "iothread");
    guint64 id;

    if (!vn_domain_parse_uint(v, 65535, "iothread", &id, NULL))
        return FALSE;
    for (guint i = 0; i < m->iothreads->len; i++) {
        const VnDomainMetaIOThread *io = &g_array_index(m->iothreads, VnDomainMetaIOThread, i);
        if (io->id == id)
            return pin_equals(pin, io->cpus);
    }
    return FALSE;
}

/* `pin` described when the recorded placement does not account for it. */
static gchar *
pin_handwritten(xmlNode *pin, const VnDomainMetadata *m)
{
    gboolean placed = m && m->has_placement;
    g_autofree gchar *v = NULL;

    if (xmlStrEqual(pin->name, BAD_CAST "vcpupin") && !(placed && vcpupin_owned(pin, m))) {
        v = vn_xml_prop(pin, "vcpu");
        return g_strdup_printf("<cputune><vcpupin vcpu='%s'>", v ? v : "");
    }
    if (xmlStrEqual(pin->name, BAD_CAST "emulatorpin") &&
        !(placed && pin_equals(pin, m->emulator_cpus)))
        return g_strdup("<cputune><emulatorpin>");
    if (xmlStrEqual(pin->name, BAD_CAST "iothreadpin") && !(placed && iothreadpin_owned(pin, m))) {
        v = vn_xml_prop(pin, "iothread");
        return g_strdup_printf("<cputune><iothreadpin iothread='%s'>", v ? v : "");
    }
    return NULL;
}

/* The first hand-written element of <vcpu>/<cputune> as text, or NULL.
 * <vcpu cpuset> is none: it is the allowed set (VnDomain.allowed_cpus). */
gchar *
vn_domain_cputune_handwritten(xmlNode *root, const VnDomainMetadata *m)
{
    xmlNode *vcpu = vn_xml_child(root, "vcpu");
    xmlNode *cputune = vn_xml_child(root, "cputune");
    g_autofree gchar *placement = vn_xml_prop(vcpu, "placement");

    if (g_strcmp0(placement, "auto") == 0)
        return g_strdup("<vcpu placement='auto'>");
    for (xmlNode *n = cputune ? cputune->children : NULL; n; n = n->next) {
        gchar *why = n->type == XML_ELEMENT_NODE && !n->ns ? pin_handwritten(n, m) : NULL;
        if (why)
            return why;
    }
    return NULL;
}

static void
remove_pins(xmlNode *cputune)
{
    static const gchar *const names[] = { "vcpupin", "emulatorpin", "iothreadpin", NULL };

    for (guint i = 0; names[i]; i++) {
        g_autoptr(GPtrArray) pins = vn_xml_children(cputune, names[i]);
        for (guint j = 0; j < pins->len; j++)
            vn_xml_remove(pins->pdata[j]);
    }
}

static xmlNode *
add_pin(xmlNode *cputune, const gchar *name, const gchar *id_attr, guint id, const VnBitmap *cpus)
{
    xmlNode *pin = vn_xml_add_new(cputune, name, NULL);

    if (id_attr)
        vn_xml_set_uint(pin, id_attr, id);
    vn_xml_set_bitmap(pin, "cpuset", cpus);
    return pin;
}

static gboolean
within(const VnBitmap *cpus, const VnBitmap *set)
{
    g_autoptr(VnBitmap) out = cpus ? vn_bitmap_copy(cpus) : NULL;

    if (out)
        vn_bitmap_and_not(out, set);
    return !out || vn_bitmap_is_empty(out);
}

/* Every pin the placement writes lies in `set`. */
static gboolean
pins_within(const VnDomainWriteCtx *c, const VnBitmap *set)
{
    gboolean ok = within(c->p->emulator_cpus, set);

    for (guint v = 0; ok && v < c->vcpu_pins->len; v++)
        ok = within(c->vcpu_pins->pdata[v], set);
    for (guint i = 0; ok && i < c->p->iothreads->len; i++)
        ok = within(g_array_index(c->p->iothreads, VnIOThreadPin, i).cpus, set);
    return ok;
}

void
vn_domain_write_cputune(xmlNode *root, const VnDomain *d, const VnDomainWriteCtx *c)
{
    static const gchar *const after[] = { "vcpu", "vcpus", "iothreads", "iothreadids", NULL };
    xmlNode *vcpu = vn_xml_child(root, "vcpu");
    xmlNode *cputune = vn_domain_ensure(root, "cputune", after);

    /* The allowed set stays when every pin is inside it (the engine plans
     * there), so a later plan keeps to it too; a placement outside it
     * replaces it. */
    if (!d->allowed_cpus || !pins_within(c, d->allowed_cpus))
        xmlUnsetProp(vcpu, BAD_CAST "cpuset");
    xmlSetProp(vcpu, BAD_CAST "placement", BAD_CAST "static");
    remove_pins(cputune);
    for (guint v = 0; v < c->vcpu_pins->len; v++)
        add_pin(cputune, "vcpupin", "vcpu", v, c->vcpu_pins->pdata[v]);
    if (c->p->emulator_cpus)
        add_pin(cputune, "emulatorpin", NULL, 0, c->p->emulator_cpus);
    for (guint i = 0; i < c->p->iothreads->len; i++) {
        const VnIOThreadPin *io = &g_array_index(c->p->iothreads, VnIOThreadPin, i);
        add_pin(cputune, "iothreadpin", "iothread",
                g_array_index(d->iothread_ids, guint, io->id - 1), io->cpus);
    }
}

GPtrArray *
vn_domain_vcpupins(const VnDomain *d, guint n_vcpus, guint n_bits)
{
    xmlNode *cputune = vn_xml_child(xmlDocGetRootElement(d->doc), "cputune");
    g_autoptr(GPtrArray) pins = vn_xml_children(cputune, "vcpupin");
    g_autoptr(VnBitmap) seen = vn_bitmap_new(n_vcpus);
    GPtrArray *ret = g_ptr_array_new_full(n_vcpus, (GDestroyNotify)vn_bitmap_free);

    g_ptr_array_set_size(ret, (gint)n_vcpus);
    for (guint i = 0; i < pins->len; i++) {
        g_autofree gchar *v = vn_xml_prop(pins->pdata[i], "vcpu");
        g_autofree gchar *s = vn_xml_prop(pins->pdata[i], "cpuset");
        guint64 id;
        if (!vn_domain_parse_uint(v, G_MAXUINT, "vcpu", &id, NULL) || id >= n_vcpus ||
            vn_bitmap_test(seen, (guint)id))
            continue;
        vn_bitmap_set(seen, (guint)id);
        ret->pdata[id] = s ? vn_cpulist_parse(s, n_bits, NULL) : NULL;
    }
    return ret;
}
