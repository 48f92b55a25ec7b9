"""Installs vnuma_nova on its own (`python3 setup.py install`, or
`pip install integrations/nova` where pip may reach its build backend);
`make install` of the vnuma tree installs the same files."""

import os

from setuptools import setup

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, 'entry_points.txt')) as f:
    entry_points = f.read()

setup(
    name='vnuma-nova',
    version='0.1.0',
    description='OpenStack Nova scheduler filter and weigher asking each '
                'host\'s vnumad where a VM fits',
    license='LGPL-2.1-or-later',
    packages=['vnuma_nova'],
    install_requires=['nova'],
    entry_points=entry_points,
)
