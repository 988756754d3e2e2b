"""The spider of the Scrapy tests: follows every link of the test site.

Run by `python -m scrapy runspider scrapy_spider.py -a root=URL -s ...`,
as a user runs a crawl, so a pause and a resume are two processes.
"""

import scrapy


class SiteSpider(scrapy.Spider):
    name = "site"

    async def start(self):
        yield scrapy.Request(self.root)

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href)
