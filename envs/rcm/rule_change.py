"""The payer rule change the rcm demo makes in the sandbox.

Bluestone Health Plan shortens its retro-authorization window from 30 to 5 days after the date of
service. Claim CLM-1004 (CO-197, service 10 days ago) was recoverable under the old rule (request a
retro-authorization, then send a replacement claim with its number); under the new one the window
is closed and the $300 is written off. The specialist reads the payer's rules as the payer now
publishes them, so the episode meets a rule value no training task holds: the detector's
`unknown_vocabulary` rule reports it (`retro_auth_window_days` is one of the demo's vocabulary
fields), and the promotion workflow turns that episode into a task draft under the new rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from adapters.rcm import World
from adapters.rcm.payers import PayerRules


@dataclass(frozen=True)
class PayerRuleChange:
    """One payer's rules, changed in the live system."""

    payer_id: str
    field: str
    value: int
    affected_claims: tuple[str, ...]
    """Claims of the demo's work queue whose right handling the change alters."""

    def rules(self, before: PayerRules) -> PayerRules:
        """The payer's rules after the change."""
        return before.model_copy(update={self.field: self.value})

    def apply(self, world: World) -> World:
        """`world` with the change made (the sandbox's ground truth once the change is in)."""
        payer = world.payer(self.payer_id)
        changed = payer.model_copy(update={"rules": self.rules(payer.rules)})
        return world.model_copy(update={"payers": {**world.payers, self.payer_id: changed}})

    def make(self, live_url: str, admin_token: str) -> World:
        """Make the change in the live system (`PUT /admin/payers/{id}/rules`, with the sandbox's
        admin token); the world as it stood before."""
        from adapters.rcm.sandbox import SandboxAdmin

        admin = SandboxAdmin(live_url, admin_token)
        try:
            world = admin.world()
            admin.set_rules(self.payer_id, self.rules(world.payer(self.payer_id).rules))
        finally:
            admin.close()
        return world

    def describe(self, world: World) -> str:
        """One line for people: who changed what, from what to what."""
        payer = world.payer(self.payer_id)
        before = getattr(payer.rules, self.field)
        return f"{payer.name} ({self.payer_id}) sets {self.field} to {self.value} (was {before})"


RETRO_WINDOW_SHORTENED = PayerRuleChange(
    payer_id="BLUE", field="retro_auth_window_days", value=5, affected_claims=("CLM-1004",)
)
"""The demo's change: Bluestone accepts retro-authorization requests up to 5 days after service."""
