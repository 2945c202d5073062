"""stub"""
import argparse
def add_parser(sub):
    p = sub.add_parser("human", help="play against a bot yourself")
def main(args):
    return 0
