"""Analysis of recorded games: the review of every decision of a seat (docs/review.md).

``review_record(record)`` judges each decision from what its seat knew then, and gives
each seat an accuracy, a luck figure and its switch window; ``noreturn review`` prints it.
"""

from noreturn.analysis.evaluate import Budget, StoppedError
from noreturn.analysis.points import ReviewError
from noreturn.analysis.review import (
    ACCURACY_SCALE,
    DEFAULT_PLAYOUTS,
    LABELS,
    DecisionReview,
    DrawReview,
    Review,
    SeatReview,
    accuracy_of,
    label_of,
    review_record,
)

__all__ = [
    "ACCURACY_SCALE", "DEFAULT_PLAYOUTS", "LABELS", "Budget", "DecisionReview", "DrawReview",
    "Review", "ReviewError", "SeatReview", "StoppedError", "accuracy_of", "label_of",
    "review_record",
]
