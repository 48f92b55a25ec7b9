/* vn-trace-gen.c: a synthetic trace with the published Azure VM mix.
 *
 * The mix and its sources are in vn-trace-file.h and
 * performance-anchors.md section 4.  Draws happen in a fixed order
 * (arrival times first, then per VM: vCPUs, GiB per vCPU, lifetime) from
 * one GRand, so a seed names a trace for good.  Times are whole seconds.
 */
#include "vn-trace-file.h"

#include <math.h>

typedef struct {
    gdouble weight;
    guint value;
} Weighted;

typedef struct {
    const Weighted *mix;
    gsize n;
} Mix;

static const Weighted vcpu_azure[] = {
    { 0.35, 1 }, { 0.23, 2 }, { 0.23, 4 }, { 0.12, 8 }, { 0.055, 16 }, { 0.01, 32 }, { 0.005, 64 },
};
static const Weighted vcpu_small[] = { { 0.40, 1 }, { 0.30, 2 }, { 0.20, 4 }, { 0.10, 8 } };
static const Weighted vcpu_large[] = {
    { 0.30, 4 }, { 0.30, 8 }, { 0.25, 16 }, { 0.10, 32 }, { 0.05, 64 },
};
static const Mix vcpu_mixes[VN_TRACE_SIZE_MAX] = {
    [VN_TRACE_SIZE_AZURE] = { vcpu_azure, G_N_ELEMENTS(vcpu_azure) },
    [VN_TRACE_SIZE_SMALL] = { vcpu_small, G_N_ELEMENTS(vcpu_small) },
    [VN_TRACE_SIZE_LARGE] = { vcpu_large, G_N_ELEMENTS(vcpu_large) },
};
/* Shares of the short and medium parts (the rest is long). */
static const gdouble lifetime_parts[VN_TRACE_LIFETIME_MAX][2] = {
    [VN_TRACE_LIFETIME_AZURE] = { 0.72, 0.90 },
    [VN_TRACE_LIFETIME_SHORT] = { 1.0, 1.0 },
    [VN_TRACE_LIFETIME_LONG] = { 0.0, 0.5 },
};
static const gchar *const size_names[] = { "azure", "small", "large", NULL };
static const gchar *const lifetime_names[] = { "azure", "short", "long", NULL };
G_STATIC_ASSERT(G_N_ELEMENTS(size_names) == VN_TRACE_SIZE_MAX + 1);
G_STATIC_ASSERT(G_N_ELEMENTS(lifetime_names) == VN_TRACE_LIFETIME_MAX + 1);

const gchar *const *
vn_trace_size_mix_names(void)
{
    return size_names;
}

const gchar *const *
vn_trace_lifetime_mix_names(void)
{
    return lifetime_names;
}

gboolean
vn_trace_mix_from_string(const gchar *const *names, const gchar *s, guint *ret)
{
    for (guint i = 0; names[i]; i++)
        if (g_strcmp0(s, names[i]) == 0) {
            *ret = i;
            return TRUE;
        }
    return FALSE;
}

static const Weighted gib_per_vcpu_mix[] = {
    { 0.30, 2 },
    { 0.50, 4 },
    { 0.20, 8 },
};

static guint
draw_weighted(GRand *r, const Weighted *mix, gsize n)
{
    gdouble x = g_rand_double(r), acc = 0;

    for (gsize i = 0; i < n; i++) {
        acc += mix[i].weight;
        if (x < acc)
            return mix[i].value;
    }
    return mix[n - 1].value;
}

static gdouble
log_uniform(GRand *r, gdouble lo, gdouble hi)
{
    return exp(log(lo) + g_rand_double(r) * (log(hi) - log(lo)));
}

/* Lifetime in seconds: with the Azure mix 72 % short, 18 % medium, 10 %
 * long.  One draw picks the part whatever the mix, so a seed keeps its
 * arrivals and sizes across lifetime mixes. */
static gdouble
draw_lifetime(GRand *r, VnTraceLifetimeMix mix)
{
    gdouble kind = g_rand_double(r);

    if (kind < lifetime_parts[mix][0]) {
        /* lognormal, median 20 min, sigma 1 (Box-Muller), kept in 1 min .. 2 h */
        gdouble u1 = MAX(g_rand_double(r), 1e-12), u2 = g_rand_double(r);
        gdouble z = sqrt(-2.0 * log(u1)) * cos(2.0 * G_PI * u2);
        return CLAMP(1200.0 * exp(z), 60.0, 7200.0);
    }
    if (kind < lifetime_parts[mix][1])
        return log_uniform(r, 2 * 3600.0, 24 * 3600.0);
    return log_uniform(r, 86400.0, 30 * 86400.0);
}

static gint
double_cmp(gconstpointer a, gconstpointer b)
{
    gdouble x = *(const gdouble *)a, y = *(const gdouble *)b;
    return (x > y) - (x < y);
}

guint64
vn_trace_smallest_vm_kib(void)
{
    return (guint64)gib_per_vcpu_mix[0].value * 1024 * 1024;
}

VnTrace *
vn_trace_generate(guint n_vms, guint32 seed, gdouble hours, VnTraceSizeMix size,
                  VnTraceLifetimeMix lifetime, guint64 max_kib)
{
    const Mix *vcpus_mix = &vcpu_mixes[size < VN_TRACE_SIZE_MAX ? size : VN_TRACE_SIZE_AZURE];
    g_autoptr(GRand) r = g_rand_new_with_seed(seed);
    g_autofree gdouble *arrivals = g_new(gdouble, MAX(n_vms, 1));
    VnTrace *t = vn_trace_new();
    guint width = 1;

    for (guint n = n_vms; n >= 10; n /= 10)
        width++;
    for (guint i = 0; i < n_vms; i++)
        arrivals[i] = floor(g_rand_double(r) * hours * 3600.0);
    qsort(arrivals, n_vms, sizeof(gdouble), double_cmp);
    for (guint i = 0; i < n_vms; i++) {
        guint vcpus, gib;
        gdouble life;

        /* a draw above the cap is drawn again: the mix truncated, not
         * clamped (the smallest VM is under any cap the caller allows) */
        do {
            vcpus = draw_weighted(r, vcpus_mix->mix, vcpus_mix->n);
            gib = vcpus * draw_weighted(r, gib_per_vcpu_mix, G_N_ELEMENTS(gib_per_vcpu_mix));
        } while (max_kib >= vn_trace_smallest_vm_kib() && (guint64)gib * 1024 * 1024 > max_kib);
        life = round(draw_lifetime(r, lifetime < VN_TRACE_LIFETIME_MAX ? lifetime
                                                                       : VN_TRACE_LIFETIME_AZURE));
        g_autofree gchar *name = g_strdup_printf("vm%0*u", (gint)width, i + 1);

        vn_trace_add(t, name, arrivals[i], vcpus, (guint64)gib * 1024 * 1024, life);
    }
    return t;
}
