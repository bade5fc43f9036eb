/**
 * @generated SignedSource<<6eee246525fa0d4613a95116cfaced3e>>
 * @relayHash 38f4016e3befe3310bb5f9c15355c3ad
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

// @relayRequestID 38f4016e3befe3310bb5f9c15355c3ad

import { ConcreteRequest } from 'relay-runtime';
export type SpaceListCreateMutation$variables = {
  connections: ReadonlyArray<string>;
  org: string;
  title: string;
};
export type SpaceListCreateMutation$data = {
  readonly createSpace: {
    readonly space: {
      readonly id: string;
      readonly title: string;
    } | null | undefined;
  } | null | undefined;
};
export type SpaceListCreateMutation = {
  response: SpaceListCreateMutation$data;
  variables: SpaceListCreateMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "connections"
},
v1 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "org"
},
v2 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "title"
},
v3 = [
  {
    "fields": [
      {
        "kind": "Variable",
        "name": "organizationId",
        "variableName": "org"
      },
      {
        "kind": "Variable",
        "name": "title",
        "variableName": "title"
      }
    ],
    "kind": "ObjectValue",
    "name": "input"
  }
],
v4 = {
  "alias": null,
  "args": null,
  "concreteType": "Space",
  "kind": "LinkedField",
  "name": "space",
  "plural": false,
  "selections": [
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "id",
      "storageKey": null
    },
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "title",
      "storageKey": null
    }
  ],
  "storageKey": null
};
return {
  "fragment": {
    "argumentDefinitions": [
      (v0/*:: as any*/),
      (v1/*:: as any*/),
      (v2/*:: as any*/)
    ],
    "kind": "Fragment",
    "metadata": null,
    "name": "SpaceListCreateMutation",
    "selections": [
      {
        "alias": null,
        "args": (v3/*:: as any*/),
        "concreteType": "CreateSpacePayload",
        "kind": "LinkedField",
        "name": "createSpace",
        "plural": false,
        "selections": [
          (v4/*:: as any*/)
        ],
        "storageKey": null
      }
    ],
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [
      (v1/*:: as any*/),
      (v2/*:: as any*/),
      (v0/*:: as any*/)
    ],
    "kind": "Operation",
    "name": "SpaceListCreateMutation",
    "selections": [
      {
        "alias": null,
        "args": (v3/*:: as any*/),
        "concreteType": "CreateSpacePayload",
        "kind": "LinkedField",
        "name": "createSpace",
        "plural": false,
        "selections": [
          (v4/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "filters": null,
            "handle": "appendNode",
            "key": "",
            "kind": "LinkedHandle",
            "name": "space",
            "handleArgs": [
              {
                "kind": "Variable",
                "name": "connections",
                "variableName": "connections"
              },
              {
                "kind": "Literal",
                "name": "edgeTypeName",
                "value": "SpaceEdge"
              }
            ]
          }
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "id": "38f4016e3befe3310bb5f9c15355c3ad",
    "metadata": {},
    "name": "SpaceListCreateMutation",
    "operationKind": "mutation",
    "text": null
  }
};
})();

(node as any).hash = "80aab255dfb5a56bc37079025fd4e77f";

export default node;
