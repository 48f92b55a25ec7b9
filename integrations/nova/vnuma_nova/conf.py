"""The ``[vnuma]`` options of nova.conf, registered on Nova's CONF."""

from oslo_config import cfg

import nova.conf

CONF = nova.conf.CONF

vnuma_group = cfg.OptGroup(
    'vnuma',
    title='vnuma NUMA placement',
    help='How the vnuma scheduler filter and weigher reach each host\'s '
         'vnumad (vnuma\'s planning API, served on TCP with a bearer '
         'token: [api] tcp_listen and bearer_token in vnuma.conf).')

vnuma_opts = [
    cfg.StrOpt('endpoint',
               default='http://{host_ip}:9474',
               help='URL of a host\'s vnumad, a template: {host_ip} is the '
                    'compute node\'s host_ip, {host} its service host name, '
                    '{nodename} its hypervisor node name.'),
    cfg.DictOpt('endpoints',
                default={},
                help='Per-host URLs that replace the template, as '
                     'host:url pairs (host = the service host name).'),
    cfg.StrOpt('token',
               secret=True,
               help='Bearer token every vnumad accepts ([api] bearer_token '
                    'in its vnuma.conf).'),
    cfg.FloatOpt('timeout',
                 default=0.5,
                 min=0.01,
                 help='Seconds a host\'s vnumad may take to connect and to '
                      'answer each read before it counts as not answering.'),
    cfg.IntOpt('parallelism',
               default=32,
               min=1,
               help='Hosts asked at once; each asked host holds one '
                    'keep-alive connection that the next request reuses.'),
    cfg.BoolOpt('fail_open',
                default=True,
                help='A host whose vnumad does not answer (down, too slow, '
                     'refusing the token, an error) passes the filter '
                     '(true, logged as a warning) or fails it (false).'),
    cfg.BoolOpt('strict_fit',
                default=False,
                help='A host where the VM fits only with some of its vCPUs '
                     'sharing CPUs with each other (it is wider than the '
                     'CPUs of the nodes with room; vnumad\'s '
                     'self_overcommitted) fails the filter (true: the rule '
                     'of Nova\'s own NUMATopologyFilter) or passes it '
                     '(false: vnuma places rather than refuses; its score '
                     'is 0, so the weigher ranks every host that gives each '
                     'vCPU a CPU above it).'),
    cfg.FloatOpt('weight_multiplier',
                 default=1.0,
                 help='Multiplier of vnuma\'s score (0..100, normalised to '
                      '0..1) in the host weight; an aggregate\'s '
                      'vnuma_weight_multiplier metadata overrides it.'),
    cfg.IntOpt('hold_ttl',
               default=300,
               min=1,
               max=86400,
               help='Seconds vnumad holds the room of an instance of a '
                    'multi-create request chosen for a host, so that the '
                    'next instance is not promised it; the host\'s hook '
                    'takes the hold over when the instance starts.'),
]


def register_opts(conf=CONF):
    conf.register_group(vnuma_group)
    conf.register_opts(vnuma_opts, group=vnuma_group)


def list_opts():
    """For oslo-config-generator (entry point oslo.config.opts)."""
    return {vnuma_group: vnuma_opts}


register_opts()
