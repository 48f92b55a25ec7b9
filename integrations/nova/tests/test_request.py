"""The flavor and image -> /v1/fit mapping, one case per extra spec and
image property (vnuma_nova.request)."""

import unittest

from nova import objects

from vnuma_nova import request

objects.register_all()


def flavor(vcpus=4, memory_mb=4096, **specs):
    return objects.Flavor(vcpus=vcpus, memory_mb=memory_mb, extra_specs=specs,
                          root_gb=1, ephemeral_gb=0, swap=0, name='f',
                          flavorid='f1')


def image(**props):
    return objects.ImageMeta.from_dict({'properties': props})


def bodies(f, i=None):
    return request.fit_bodies(f, i or image())


class TestMapping(unittest.TestCase):

    def test_vcpus_and_memory(self):
        self.assertEqual([{'vcpus': 3, 'memory_mib': 5120}],
                         bodies(flavor(vcpus=3, memory_mb=5120)))

    def test_cpu_policy_shared_is_the_default(self):
        self.assertEqual(bodies(flavor()), bodies(flavor(**{'hw:cpu_policy': 'shared'})))

    def test_cpu_policy_dedicated_one_cell_on_one_node(self):
        # Nova gives a pinned VM an implicit single guest cell
        self.assertEqual([{'vcpus': 4, 'memory_mib': 4096, 'dedicated': True,
                           'cells': 1, 'distinct_nodes': True}],
                         bodies(flavor(**{'hw:cpu_policy': 'dedicated'})))

    def test_cpu_policy_mixed_refused_with_a_reason(self):
        with self.assertRaisesRegex(request.UnsupportedRequest, 'mixed'):
            bodies(flavor(**{'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0-1'}))

    def test_cpu_thread_policy_to_smt(self):
        for nova, smt in (('prefer', 'prefer'), ('isolate', 'isolate'),
                          ('require', 'require')):
            b = bodies(flavor(**{'hw:cpu_policy': 'dedicated',
                                 'hw:cpu_thread_policy': nova}))
            self.assertEqual(smt, b[0]['smt'], nova)

    def test_cpu_thread_policy_without_dedicated_is_nova_s_refusal(self):
        with self.assertRaises(request.UnsupportedRequest):
            bodies(flavor(**{'hw:cpu_thread_policy': 'isolate'}))

    def test_mem_page_size(self):
        for value, pages in (('2MB', '2M'), ('2048', '2M'), ('1GB', '1G'),
                             ('1048576', '1G')):
            b = bodies(flavor(**{'hw:mem_page_size': value}))
            self.assertEqual([pages], [x['hugepages'] for x in b], value)
            self.assertEqual(1, b[0]['cells'])

    def test_mem_page_size_large_tries_either_pool(self):
        b = bodies(flavor(**{'hw:mem_page_size': 'large'}))
        self.assertEqual(['2M', '1G'], [x['hugepages'] for x in b])

    def test_mem_page_size_small_and_any_are_normal_pages(self):
        for value in ('small', 'any'):
            b = bodies(flavor(**{'hw:mem_page_size': value}))
            self.assertEqual(1, len(b))
            self.assertNotIn('hugepages', b[0])

    def test_mem_page_size_unknown_size_refused(self):
        with self.assertRaisesRegex(request.UnsupportedRequest, '2 MiB and 1 GiB'):
            bodies(flavor(**{'hw:mem_page_size': '64'}))

    def test_numa_nodes_even_cells_on_distinct_nodes(self):
        self.assertEqual([{'vcpus': 4, 'memory_mib': 4096, 'cells': 2,
                           'distinct_nodes': True}],
                         bodies(flavor(**{'hw:numa_nodes': '2'})))

    def test_numa_cpus_and_mem_cell_sizes(self):
        b = bodies(flavor(**{'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0',
                             'hw:numa_cpus.1': '1-3', 'hw:numa_mem.0': '1024',
                             'hw:numa_mem.1': '3072'}))
        self.assertEqual([{'vcpus': 1, 'memory_mib': 1024},
                          {'vcpus': 3, 'memory_mib': 3072}], b[0]['cell_sizes'])
        self.assertTrue(b[0]['distinct_nodes'])
        self.assertNotIn('cells', b[0])

    def test_numa_cpus_and_mem_even_sizes_are_cells(self):
        b = bodies(flavor(**{'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0,2',
                             'hw:numa_cpus.1': '1,3', 'hw:numa_mem.0': '2048',
                             'hw:numa_mem.1': '2048'}))
        self.assertEqual(2, b[0]['cells'])

    def test_numa_cpus_without_mem_is_nova_s_refusal(self):
        with self.assertRaises(request.UnsupportedRequest):
            bodies(flavor(**{'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0',
                             'hw:numa_cpus.1': '1-3'}))

    def test_numa_nodes_and_dedicated(self):
        self.assertEqual([{'vcpus': 4, 'memory_mib': 4096, 'dedicated': True,
                           'cells': 2, 'distinct_nodes': True}],
                         bodies(flavor(**{'hw:numa_nodes': '2',
                                          'hw:cpu_policy': 'dedicated'})))

    def test_image_properties(self):
        self.assertEqual(bodies(flavor(**{'hw:numa_nodes': '2'})),
                         bodies(flavor(), image(hw_numa_nodes=2)))
        self.assertEqual(bodies(flavor(**{'hw:cpu_policy': 'dedicated',
                                          'hw:cpu_thread_policy': 'require'})),
                         bodies(flavor(), image(hw_cpu_policy='dedicated',
                                                hw_cpu_thread_policy='require')))
        self.assertEqual(
            bodies(flavor(**{'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0',
                             'hw:numa_cpus.1': '1-3', 'hw:numa_mem.0': '1024',
                             'hw:numa_mem.1': '3072'})),
            bodies(flavor(), image(**{'hw_numa_nodes': '2', 'hw_numa_cpus.0': '0',
                                      'hw_numa_cpus.1': '1-3', 'hw_numa_mem.0': '1024',
                                      'hw_numa_mem.1': '3072'})))
        # an image may choose a page size within what the flavor allows
        self.assertEqual(['1G'], [b['hugepages'] for b in bodies(
            flavor(**{'hw:mem_page_size': 'large'}), image(hw_mem_page_size='1GB'))])

    def test_image_may_not_override_the_flavor(self):
        with self.assertRaises(request.UnsupportedRequest):
            bodies(flavor(**{'hw:numa_nodes': '2'}), image(hw_numa_nodes=4))

    def test_priority(self):
        for p in ('low', 'normal', 'high'):
            self.assertEqual(p, bodies(flavor(**{'vnuma:priority': p}))[0]['priority'])
        with self.assertRaisesRegex(request.UnsupportedRequest, 'vnuma:priority=urgent'):
            bodies(flavor(**{'vnuma:priority': 'urgent'}))


class TestExtraSpecValidator(unittest.TestCase):
    """Registered through the nova.api.extra_spec_validators entry point,
    so Nova's API accepts vnuma:priority and refuses a bad value."""

    def test_registered_with_nova(self):
        from nova.api.validation.extra_specs import validators
        from nova import exception
        self.assertIn('vnuma:priority', validators.VALIDATORS)
        validators.validate('vnuma:priority', 'high')
        with self.assertRaises(exception.ValidationError):
            validators.validate('vnuma:priority', 'urgent')
        # the namespace is known: a misspelt vnuma: key is refused too
        with self.assertRaises(exception.ValidationError):
            validators.validate('vnuma:priorty', 'high')


if __name__ == '__main__':
    unittest.main()
