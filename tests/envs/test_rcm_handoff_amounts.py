"""A hand-off carries its amount on the balance's side of zero: a credit balance is not refused."""

from __future__ import annotations

from adapters.rcm.args import EscalateArgs
from envs.rcm.content import fits_balance


def test_a_credit_balance_is_handed_off_with_its_negative_amount() -> None:
    args = EscalateArgs(
        claim_id="CLM-1",
        queue="billing",
        recommended_action="review",
        reason="Claim CLM-1: overpaid",
        amount=-42.5,
    )
    assert args.amount == -42.5
    assert fits_balance(-42.5, -42.5) and fits_balance(-10.0, -42.5)


def test_an_amount_on_the_wrong_side_or_beyond_the_balance_does_not_fit() -> None:
    assert not fits_balance(42.5, -42.5)
    assert not fits_balance(-50.0, -42.5)
    assert not fits_balance(-5.0, 100.0)
    assert not fits_balance(100.01, 100.0)
    assert not fits_balance(0, 100.0) and not fits_balance(True, 100.0)
    assert fits_balance(100.0, 100.0)
