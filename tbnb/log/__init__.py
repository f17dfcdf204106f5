"""Logging helpers for training code: what a training loop calls to write what tbnb reads.

Each helper lives in its own module (``watch``: the weight:update ratio of a PyTorch model) and
writes through a writer the user already has (torch's ``SummaryWriter``, tensorboardX's, or tbnb's
own ``EventWriter``). torch is imported only inside the functions that need it, so that importing
this package costs nothing to a user who only reads logs; ``tbnb.watch`` reaches these helpers
lazily from the top-level package.
"""
