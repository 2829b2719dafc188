-- The MariaDB account the tests connect with over TCP. Each test file creates and drops its own
-- database named orgs_test_*, so the account may only touch those.
CREATE USER IF NOT EXISTS 'orgs_test'@'127.0.0.1' IDENTIFIED BY 'orgs_test';
CREATE USER IF NOT EXISTS 'orgs_test'@'localhost' IDENTIFIED BY 'orgs_test';
GRANT ALL PRIVILEGES ON `orgs\_test\_%`.* TO 'orgs_test'@'127.0.0.1';
GRANT ALL PRIVILEGES ON `orgs\_test\_%`.* TO 'orgs_test'@'localhost';
FLUSH PRIVILEGES;
