-- exactgpu 0.2.0 -> 0.3.0. Every SQL change made to sql/exactgpu.sql after
-- 0.2.0 is repeated here, so that ALTER EXTENSION exactgpu UPDATE gives the
-- same catalog as a fresh install (checked by the regress test `upgrade`,
-- from 0.1.0 and from 0.2.0). sql/exactgpu--0.2.0.sql is 0.2.0 as shipped.
\echo Use "ALTER EXTENSION exactgpu UPDATE TO '0.3.0'" to load this file. \quit
