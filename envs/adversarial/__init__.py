"""Adversarial checks of verifiers (design.md §5): mutation testing of gold trajectories, a battery
of exploit policies, and a red-team hook for attackers that propose trajectories.

Generic here; a domain adds its mutation operators in `envs.<domain>.mutants.OPERATORS` and its
exploit policies in `envs.<domain>.exploits.EXPLOITS`.
"""
