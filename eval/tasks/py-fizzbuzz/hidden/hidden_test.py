import unittest
from fizzbuzz import fizzbuzz


class HiddenTest(unittest.TestCase):
    def test_all(self):
        self.assertEqual([fizzbuzz(n) for n in (1, 3, 5, 30, 7)], ["1", "Fizz", "Buzz", "FizzBuzz", "7"])
