"""Stand-ins for Dask's client objects in tests that run tasks in this process."""


class DoneFuture:
    """Stands for a Dask future whose task ran at once, in this process."""

    def __init__(self, function, args) -> None:
        self.value = function(*args)

    def add_done_callback(self, callback) -> None:
        callback(self)

    def result(self):
        return self.value

    def cancel(self) -> None:
        pass
