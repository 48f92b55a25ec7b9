"""VnumaWeigher: weighs hosts by vnumad's score for the VM.

The score (``/v1/fit``, 0..100) is higher on one node than split, near
nodes than distant ones, lightly loaded nodes than busy ones; no fit (or
no answer) scores 0.  It is normalised to 0..1 on that fixed scale and
multiplied by ``[vnuma] weight_multiplier``, which an aggregate's
``vnuma_weight_multiplier`` metadata overrides for its hosts.
"""

from nova.scheduler import utils
from nova.scheduler import weights

from vnuma_nova import verdicts
from vnuma_nova.conf import CONF


class VnumaWeigher(weights.BaseHostWeigher):
    minval = 0
    maxval = 100

    def weight_multiplier(self, host_state):
        return utils.get_weight_multiplier(
            host_state, 'vnuma_weight_multiplier',
            CONF.vnuma.weight_multiplier)

    def weigh_objects(self, weighed_obj_list, weight_properties):
        # the scores go straight back: one weigher serves concurrent
        # requests, so nothing of one request is kept on self
        hosts = [w.obj for w in weighed_obj_list]
        state = verdicts.REGISTRY.get(weight_properties)
        if state.unsupported:
            return [0] * len(hosts)
        return [v.score if v.fits else 0
                for v in state.ensure(hosts, weight_properties)]

    def _weigh_object(self, host_state, weight_properties):
        return self.weigh_objects([_Weighed(host_state)], weight_properties)[0]


class _Weighed:
    def __init__(self, obj):
        self.obj = obj
