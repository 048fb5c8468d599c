import unittest
from stats import median


class HiddenTest(unittest.TestCase):
    def test_unsorted_even(self):
        self.assertEqual(median([10, 1, 4, 3]), 3.5)

    def test_single(self):
        self.assertEqual(median([7]), 7)
