"""VnumaFitFilter: keeps the hosts whose vnumad says the VM fits now.

Enable it last in ``[filter_scheduler] enabled_filters``: it is the only
filter that makes a network call, so it should see the fewest hosts.
"""

from oslo_log import log as logging

from nova.scheduler import filters
from nova.scheduler import utils

from vnuma_nova import verdicts
from vnuma_nova.conf import CONF

LOG = logging.getLogger(__name__)


class VnumaFitFilter(filters.BaseHostFilter):
    """Asks every candidate host's vnumad ``POST /v1/fit`` in parallel."""

    RUN_ON_REBUILD = False

    def filter_all(self, filter_obj_list, spec_obj):
        hosts = list(filter_obj_list)
        if not hosts or utils.request_is_rebuild(spec_obj):
            return hosts
        state = verdicts.REGISTRY.get(spec_obj)
        if state.unsupported:
            LOG.info('vnuma: not judging this request, every host passes: %s',
                     state.unsupported)
            return hosts
        answers = state.ensure(hosts, spec_obj)
        return [h for h, v in zip(hosts, answers) if self._passes(h, v)]

    def host_passes(self, host_state, spec_obj):
        return bool(self.filter_all([host_state], spec_obj))

    @staticmethod
    def _passes(host_state, verdict):
        if verdict.error:
            if CONF.vnuma.fail_open:
                LOG.warning('vnuma: %s passes unjudged ([vnuma] fail_open): %s',
                            host_state.host, verdict.error)
                return True
            LOG.warning('vnuma: %s fails, its vnumad did not answer: %s',
                        host_state.host, verdict.error)
            return False
        if not verdict.fits:
            LOG.debug('vnuma: %s: the VM fits no node set: %s',
                      host_state.host, '; '.join(verdict.reasons[:3]))
            return False
        if verdict.self_overcommitted and CONF.vnuma.strict_fit:
            LOG.debug('vnuma: %s fails ([vnuma] strict_fit): the VM fits only '
                      'with some of its vCPUs sharing CPUs with each other',
                      host_state.host)
            return False
        return True
