"""The embedded stack's reference policy: a structured model over the conversation's values.

`observe` turns the chat messages into items (its chat template, in effect), `templates` turns
actions into templates with copy slots, `model` is a small transformer with a decision head and
pointer heads, `policy` puts it behind the chat interface, `bootstrap` trains it from scratch and
`sft` adapts it with LoRA. Every value it writes is copied from the conversation.
"""
