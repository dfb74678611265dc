"""The one episode engine: every episode (evaluation, training rollouts, the gateway, production)
is this loop, with the policy, the toolbox's backend, the recorder and the clock as ports."""
