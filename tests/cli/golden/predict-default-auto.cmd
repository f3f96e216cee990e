predict --algo auto --format csv
