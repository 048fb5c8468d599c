import unittest
from stats import median


class MedianTest(unittest.TestCase):
    def test_even(self):
        self.assertEqual(median([1, 2, 3, 4]), 2.5)

    def test_odd(self):
        self.assertEqual(median([3, 1, 2]), 2)
