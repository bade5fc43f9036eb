/** Imports every type file (each registers its types with the builder) and builds the schema. */
import { lexicographicSortSchema } from 'graphql';
import { builder } from './builder.js';
import './lib/scalars.js';
import './lib/enums.js';
import './nodes/User.js';
import './nodes/Organization.js';

builder.queryType({});

export const schema = lexicographicSortSchema(builder.toSchema());
