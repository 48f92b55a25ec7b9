"""vnuma for OpenStack Nova: a scheduler filter and weigher that ask each
candidate host's vnumad (the vnuma planning API) whether and how well a VM
fits its NUMA nodes now.

Nova chooses the host; vnuma on that host chooses the nodes.  The filter
(``vnuma_nova.filter.VnumaFitFilter``) drops hosts where the VM fits no
node set, the weigher (``vnuma_nova.weigher.VnumaWeigher``) prefers hosts
where it fits on one node, near and lightly loaded.  Options live in
nova.conf's ``[vnuma]`` group (``vnuma_nova.conf``).
"""

__version__ = '0.1.0'
