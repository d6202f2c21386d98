"""listings"""
