# Objects: small classes, __slots__, operator methods, attribute reads and writes.
class Vec:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, other):
        return Vec(self.x + other.x, self.y + other.y)

    def scale(self, k):
        return Vec(self.x * k, self.y * k)

    def dot(self, other):
        return self.x * other.x + self.y * other.y


class Body:
    def __init__(self, position, velocity):
        self.position = position
        self.velocity = velocity

    def step(self, gravity):
        self.velocity = self.velocity + gravity
        self.position = self.position + self.velocity.scale(1)


def work(n):
    bodies = [Body(Vec(i, -i), Vec(i % 3, i % 5)) for i in range(100)]
    gravity = Vec(0, -1)
    acc = 0
    for _ in range(n):
        for body in bodies:
            body.step(gravity)
        acc += bodies[n % 100].position.dot(gravity)
    return f"{acc} {bodies[7].position.x} {bodies[7].position.y}"
