"""The extra specs vnuma reads, for Nova's API validation (entry point
``nova.api.extra_spec_validators``: ``vnuma = vnuma_nova.extra_specs``),
so ``openstack flavor set --property vnuma:priority=high`` is accepted and
a misspelt value refused."""

from nova.api.validation.extra_specs import base

from vnuma_nova import request

EXTRA_SPEC_VALIDATORS = [
    base.ExtraSpecValidator(
        name=request.PRIORITY_SPEC,
        description=(
            'vnuma priority of the VM on its host: high-priority VMs get '
            'the least contended nodes and are moved last by the host\'s '
            'rebalancer; low-priority ones yield first.'),
        value={
            'type': str,
            'description': 'The priority.',
            'enum': list(request.PRIORITIES),
        },
    ),
]


def register():
    return EXTRA_SPEC_VALIDATORS
