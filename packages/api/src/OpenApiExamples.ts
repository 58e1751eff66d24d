/**
 * An example of every operation's request body and success answer, as the service really gave them
 * (recorded from a test server, ids and times included). The OpenAPI document shows them
 * (OpenApiDocument.ts) instead of values Scalar would invent from the bounds; a test decodes each one
 * with its endpoint's schemas, so an example that stops matching the API fails the suite.
 */

export interface OperationExample {
  /** The request body, when the operation takes one. */
  readonly request?: unknown
  /** The answer's body for each success status the operation documents. */
  readonly responses: Readonly<Record<number, unknown>>
}

/** By OpenAPI operation id (`<group>.<endpoint>`). */
export const EXAMPLES: Record<string, OperationExample> = {
  "system.healthz": {
    responses: {
      200: {
        timestamp: "1795834427045",
        status: 200,
        success: true,
        message: "Service is alive",
        data: { status: "ok" }
      }
    }
  },
  "system.readyz": {
    responses: {
      200: {
        timestamp: "1795834427122",
        status: 200,
        success: true,
        message: "Service is ready",
        data: { database: "ok" }
      }
    }
  },
  "push.pushDirect": {
    request: {
      tokenType: "FCM",
      token: "fcm-device-token-1",
      title: "Hello",
      body: "A test push",
      data: { screen: "wallet" }
    },
    responses: {
      200: {
        success: true,
        errorCode: null,
        errorMessage: null,
        shouldDeactivateToken: false,
        retryable: false,
        providerMessageId: "local-992797e4-9ba3-4dad-9656-283f5e9dbf37"
      }
    }
  },
  "trivia.create": {
    request: {
      title: "Friday quiz",
      prizeAmount: 50000,
      startTime: "2026-12-05T18:00:00Z",
      endTime: "2026-12-05T19:00:00Z",
      questionType: 1,
      questionCount: 10,
      numberOfWinners: 3,
      sharingFormula: "PROPORTIONAL"
    },
    responses: {
      201: {
        timestamp: "2026-11-28T03:53:47.193",
        status: 201,
        success: true,
        message: "Challenge created",
        data: {
          id: 1,
          title: "Friday quiz",
          prizeAmount: 50000,
          startTime: "2026-12-05T18:00:00.000Z",
          endTime: "2026-12-05T19:00:00.000Z",
          questionType: 1,
          questionCount: 10,
          numberOfWinners: 3,
          sharingFormula: "PROPORTIONAL",
          version: 1,
          createdAt: "2026-11-28T02:53:47.179Z",
          updatedAt: "2026-11-28T02:53:47.179Z"
        }
      }
    }
  },
  "trivia.update": {
    request: {
      title: "Friday quiz",
      prizeAmount: 75000,
      startTime: "2026-12-05T18:00:00Z",
      endTime: "2026-12-05T19:00:00Z",
      questionType: 1,
      questionCount: 10,
      numberOfWinners: 3,
      sharingFormula: "PROPORTIONAL"
    },
    responses: {
      200: {
        timestamp: "2026-11-28T03:53:47.261",
        status: 200,
        success: true,
        message: "Challenge updated successfully",
        data: "Challenge with id 1 updated successfully"
      }
    }
  },
  "trivia.get": {
    responses: {
      200: {
        timestamp: "2026-11-28T03:53:47.276",
        status: 200,
        success: true,
        message: "Challenge fetched",
        data: {
          id: 1,
          title: "Friday quiz",
          prizeAmount: 75000,
          startTime: "2026-12-05T18:00:00.000Z",
          endTime: "2026-12-05T19:00:00.000Z",
          questionType: 1,
          questionCount: 10,
          numberOfWinners: 3,
          sharingFormula: "PROPORTIONAL",
          version: 2,
          createdAt: "2026-11-28T02:53:47.179Z",
          updatedAt: "2026-11-28T02:53:47.222Z"
        }
      }
    }
  },
  "trivia.list": {
    responses: {
      200: {
        timestamp: "2026-11-28T03:53:47.394",
        status: 200,
        success: true,
        message: "Challenges fetched",
        data: [
          {
            id: 1,
            title: "Friday quiz",
            prizeAmount: 75000,
            startTime: "2026-12-05T18:00:00.000Z",
            endTime: "2026-12-05T19:00:00.000Z",
            questionType: 1,
            questionCount: 10,
            numberOfWinners: 3,
            sharingFormula: "PROPORTIONAL",
            version: 2,
            createdAt: "2026-11-28T02:53:47.179Z",
            updatedAt: "2026-11-28T02:53:47.222Z"
          }
        ]
      }
    }
  },
  "devices.register": {
    request: {
      tokenType: "FCM",
      token: "fcm:APA91bHxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
      platform: "android"
    },
    responses: {
      200: {
        timestamp: "1795834427477",
        status: 200,
        success: true,
        message: "Device already registered",
        data: {
          deviceId: "aec4d65c-e280-4461-9c1a-9ef6121dba76",
          tokenType: "FCM",
          tokenLast8: "xxxxxxxx",
          platform: "android",
          createdAt: "2026-11-28T02:53:47Z"
        }
      },
      201: {
        timestamp: "1795834427441",
        status: 201,
        success: true,
        message: "Device registered",
        data: {
          deviceId: "aec4d65c-e280-4461-9c1a-9ef6121dba76",
          tokenType: "FCM",
          tokenLast8: "xxxxxxxx",
          platform: "android",
          createdAt: "2026-11-28T02:53:47Z"
        }
      }
    }
  },
  "devices.list": {
    responses: {
      200: {
        timestamp: "1795834427483",
        status: 200,
        success: true,
        message: "Devices fetched",
        data: [
          {
            deviceId: "aec4d65c-e280-4461-9c1a-9ef6121dba76",
            tokenType: "FCM",
            tokenLast8: "xxxxxxxx",
            platform: "android",
            createdAt: "2026-11-28T02:53:47Z"
          }
        ]
      }
    }
  },
  "bankingAdmin.linkVirtualAccount": {
    request: { userId: "user-1", currency: "NGN", accountName: "WALLET/ADA OKAFOR", bankName: "Providus Bank" },
    responses: {
      200: {
        timestamp: "1795834427542",
        status: 200,
        success: true,
        message: "Virtual account already linked",
        data: {
          accountNumber: "9900112233",
          userId: "user-1",
          currency: "NGN",
          accountName: "WALLET/ADA OKAFOR",
          bankName: "Providus Bank",
          createdAt: "2026-11-28T02:53:47.517Z"
        }
      },
      201: {
        timestamp: "1795834427522",
        status: 201,
        success: true,
        message: "Virtual account linked",
        data: {
          accountNumber: "9900112233",
          userId: "user-1",
          currency: "NGN",
          accountName: "WALLET/ADA OKAFOR",
          bankName: "Providus Bank",
          createdAt: "2026-11-28T02:53:47.517Z"
        }
      }
    }
  },
  "webhookEvents.replay": {
    responses: {
      200: {
        timestamp: "1795834427539",
        status: 200,
        success: true,
        message: "Webhook event replayed",
        data: {
          eventId: "0bfed914-87dd-45cf-8e34-162401e2a98e",
          kind: "virtualaccount.credit",
          reference: "VA-20261121-0001",
          replayed: true,
          outcome: "processed",
          reason: null
        }
      }
    }
  },
  "webhook.coreBanking": {
    request: {
      data: {
        fee: "50.25",
        date: "2026-11-21T18:30:12.123456Z",
        type: "CREDIT",
        amount: 5000.75,
        source: { bank_name: "Zenith Bank", account_name: "ADA OKAFOR", account_number: "2212345678" },
        status: "SUCCESSFUL",
        currency: "NGN",
        receiver: { bank_name: "Providus Bank", account_name: "WALLET/ADA OKAFOR", account_number: "9900112233" },
        bank_code: "000015",
        bank_name: "Zenith Bank",
        narration: "Wallet top-up",
        reference: "VA-20261121-0001",
        session_id: "000015261121183012123456789012",
        sender_bank: "Zenith Bank",
        account_name: "WALLET/ADA OKAFOR",
        account_number: "9900112233",
        settled_amount: 4950.5,
        transaction_date: "2026-11-21T18:30:12Z",
        sender_account_name: "ADA OKAFOR",
        sender_account_number: "2212345678",
        virtual_account_number: "9900112233",
        virtual_account_reference: "VAREF-ada"
      },
      type: "VIRTUAL-ACCOUNT",
      event: "VIRTUAL-ACCOUNT-INFLOW",
      transferFailed: false,
      transferSuccess: false,
      virtualAccountCredit: true,
      virtualAccountNumber: "9900112233"
    },
    responses: {
      200: { status: 200, message: "Webhook processed successfully", data: "OK" }
    }
  },
  "bankingAdmin.recordTransfer": {
    request: { reference: "TRF-20261121-0001", userId: "user-1", amount: "1500.00", currency: "NGN" },
    responses: {
      200: {
        timestamp: "1795834427574",
        status: 200,
        success: true,
        message: "Transfer already recorded",
        data: {
          reference: "TRF-20261121-0001",
          userId: "user-1",
          amount: "1500.00",
          currency: "NGN",
          status: "PENDING",
          createdAt: "2026-11-28T02:53:47.558Z",
          updatedAt: "2026-11-28T02:53:47.558Z"
        }
      },
      201: {
        timestamp: "1795834427570",
        status: 201,
        success: true,
        message: "Transfer recorded",
        data: {
          reference: "TRF-20261121-0001",
          userId: "user-1",
          amount: "1500.00",
          currency: "NGN",
          status: "PENDING",
          createdAt: "2026-11-28T02:53:47.558Z",
          updatedAt: "2026-11-28T02:53:47.558Z"
        }
      }
    }
  },
  "wallet.wallet": {
    responses: {
      200: {
        timestamp: "1795834427579",
        status: 200,
        success: true,
        message: "Wallet fetched",
        data: { coinBalance: 0, balances: [{ currency: "NGN", available: "3450.50" }] }
      }
    }
  },
  "wallet.statement": {
    responses: {
      200: {
        timestamp: "1795834427588",
        status: 200,
        success: true,
        message: "Wallet transactions fetched",
        data: {
          items: [
            {
              id: "3",
              occurredAt: "2026-11-28T02:53:47.558Z",
              kind: "transfer.hold",
              direction: "DEBIT",
              amount: "1500.00",
              balanceAfter: "3450.50",
              currency: "NGN",
              reference: "TRF-20261121-0001"
            },
            {
              id: "2",
              occurredAt: "2026-11-28T02:53:47.529Z",
              kind: "deposit",
              direction: "CREDIT",
              amount: "4950.50",
              balanceAfter: "4950.50",
              currency: "NGN",
              reference: "VA-20261121-0001"
            }
          ],
          nextCursor: null
        }
      }
    }
  },
  "bankingAdmin.userStatement": {
    responses: {
      200: {
        timestamp: "1795834427593",
        status: 200,
        success: true,
        message: "Wallet transactions fetched",
        data: {
          items: [
            {
              id: "3",
              occurredAt: "2026-11-28T02:53:47.558Z",
              kind: "transfer.hold",
              direction: "DEBIT",
              amount: "1500.00",
              balanceAfter: "3450.50",
              currency: "NGN",
              reference: "TRF-20261121-0001"
            },
            {
              id: "2",
              occurredAt: "2026-11-28T02:53:47.529Z",
              kind: "deposit",
              direction: "CREDIT",
              amount: "4950.50",
              balanceAfter: "4950.50",
              currency: "NGN",
              reference: "VA-20261121-0001"
            }
          ],
          nextCursor: null
        }
      }
    }
  },
  "webhookEvents.list": {
    responses: {
      200: {
        timestamp: "1795834427596",
        status: 200,
        success: true,
        message: "Webhook events fetched",
        data: {
          items: [
            {
              id: "0bfed914-87dd-45cf-8e34-162401e2a98e",
              kind: "virtualaccount.credit",
              reference: "VA-20261121-0001",
              outcome: "processed",
              reason: null,
              receivedAt: "2026-11-28T02:53:47.489Z"
            }
          ],
          nextCursor: null
        }
      }
    }
  },
  "webhookEvents.detail": {
    responses: {
      200: {
        timestamp: "1795834427600",
        status: 200,
        success: true,
        message: "Webhook event fetched",
        data: {
          id: "0bfed914-87dd-45cf-8e34-162401e2a98e",
          kind: "virtualaccount.credit",
          reference: "VA-20261121-0001",
          outcome: "processed",
          reason: null,
          receivedAt: "2026-11-28T02:53:47.489Z",
          processedAt: "2026-11-28T02:53:47.536Z",
          body: '{\n  "data": {\n    "fee": "50.25",\n    "date": "2026-11-21T18:30:12.123456Z",\n    "type": "CREDIT",\n    "amount": 5000.75,\n    "source": {\n      "bank_name": "Zenith Bank",\n      "account_name": "ADA OKAFOR",\n      "account_number": "2212345678"\n    },\n    "status": "SUCCESSFUL",\n    "currency": "NGN",\n    "receiver": {\n      "bank_name": "Providus Bank",\n      "account_name": "WALLET/ADA OKAFOR",\n      "account_number": "9900112233"\n    },\n    "bank_code": "000015",\n    "bank_name": "Zenith Bank",\n    "narration": "Wallet top-up",\n    "reference": "VA-20261121-0001",\n    "session_id": "000015261121183012123456789012",\n    "sender_bank": "Zenith Bank",\n    "account_name": "WALLET/ADA OKAFOR",\n    "account_number": "9900112233",\n    "settled_amount": 4950.5,\n    "transaction_date": "2026-11-21T18:30:12Z",\n    "sender_account_name": "ADA OKAFOR",\n    "sender_account_number": "2212345678",\n    "virtual_account_number": "9900112233",\n    "virtual_account_reference": "VAREF-ada"\n  },\n  "type": "VIRTUAL-ACCOUNT",\n  "event": "VIRTUAL-ACCOUNT-INFLOW",\n  "transferFailed": false,\n  "transferSuccess": false,\n  "virtualAccountCredit": true,\n  "virtualAccountNumber": "9900112233"\n}\n',
          bodyEncoding: "utf8"
        }
      }
    }
  },
  "webhookEvents.replayByOutcome": {
    request: { outcome: "unmatched" },
    responses: {
      200: {
        timestamp: "1795834427604",
        status: 200,
        success: true,
        message: "Replayed unmatched webhook events",
        data: []
      }
    }
  },
  "webhookEvents.deadLetters": {
    responses: {
      200: {
        timestamp: "1795834427612",
        status: 200,
        success: true,
        message: "Dead letters fetched",
        data: {
          items: [
            {
              id: "c1e336bd-caaa-4138-85a2-43c57bb6ba6a",
              error: "Malformed JSON: (root): invalid JSON",
              receivedAt: "2026-11-28T02:53:47.605Z",
              body: "{not json",
              bodyEncoding: "utf8"
            }
          ],
          nextCursor: null
        }
      }
    }
  },
  "wheel.view": {
    responses: {
      200: {
        timestamp: "1795834427626",
        status: 200,
        success: true,
        message: "Spin and win segments fetched successfully",
        data: {
          coinBalance: 0,
          expiresIn: "20:06:13",
          segments: [
            { id: "seg-₦50", label: "₦50", value: 50, type: "cash" },
            { id: "seg-10coins", label: "10 coins", value: 10, type: "coin" },
            { id: "seg-₦100", label: "₦100", value: 100, type: "cash" },
            { id: "seg-20coins", label: "20 coins", value: 20, type: "coin" },
            { id: "seg-tryagain", label: "Try again", value: 0, type: "cash" },
            { id: "seg-₦500", label: "₦500", value: 500, type: "cash" },
            { id: "seg-50coins", label: "50 coins", value: 50, type: "coin" },
            { id: "seg-₦1,000", label: "₦1,000", value: 1000, type: "cash" }
          ]
        }
      }
    }
  },
  "wheel.clientSeed": {
    responses: {
      200: {
        timestamp: "1795834427629",
        status: 200,
        success: true,
        message: "Client seed fetched successfully",
        data: { clientSeed: "c6c289e49e9c05b2145860387b73bcb1", nonce: 0 }
      }
    }
  },
  "wheel.setClientSeed": {
    request: { clientSeed: "my lucky seed" },
    responses: {
      200: {
        timestamp: "1795834427638",
        status: 200,
        success: true,
        message: "Client seed set; it applies from your next spin",
        data: { clientSeed: "my lucky seed", nonce: 0 }
      }
    }
  },
  "wheel.spin": {
    responses: {
      200: {
        timestamp: "1795834427647",
        status: 200,
        success: true,
        message: "Spin completed",
        data: {
          segment: { id: "seg-10coins", label: "10 coins", value: 10, type: "coin" },
          coinBalance: 10,
          expiresIn: "20:06:13",
          clientSeed: "my lucky seed",
          nonce: 0
        }
      }
    }
  },
  "wheel.round": {
    responses: {
      200: {
        timestamp: "1795834434766",
        status: 200,
        success: true,
        message: "Round revealed",
        data: {
          round: "2026-11-27",
          seed: "1254dd6cc15695ca687f43e8d0bb3df3645ffda43797cd0df85bf7b0465eef0f",
          commitment: "6d607b2702cfa303862365df2a2257389f04173b213cbfe8671c3499452a6669",
          startedAt: "2026-11-26T10:00:00.000Z",
          endedAt: "2026-11-27T10:00:00.000Z",
          wheels: [
            {
              version: 1,
              currency: "NGN",
              totalWeight: 100,
              ranges: [
                { segmentId: "seg-₦50", from: 0, to: 10 },
                { segmentId: "seg-10coins", from: 10, to: 30 },
                { segmentId: "seg-₦100", from: 30, to: 38 },
                { segmentId: "seg-20coins", from: 38, to: 53 },
                { segmentId: "seg-tryagain", from: 53, to: 83 },
                { segmentId: "seg-₦500", from: 83, to: 88 },
                { segmentId: "seg-50coins", from: 88, to: 98 },
                { segmentId: "seg-₦1,000", from: 98, to: 100 }
              ]
            }
          ],
          spins: [
            {
              spinId: "01154827-5a29-428b-838f-5c1ff224addb",
              userId: "user-1",
              clientSeed: "my lucky seed",
              nonce: 0,
              wheelVersion: 1,
              drawValue: 43,
              segmentId: "seg-20coins",
              prize: { type: "coin", value: 20 },
              createdAt: "2026-11-28T02:53:54.561Z"
            }
          ]
        }
      }
    }
  },
  "cards.add": {
    request: {
      cardholderName: "Ada Okafor",
      cardNumber: "5555555555554444",
      expiryMonth: 12,
      expiryYear: 2030,
      cvv: "123"
    },
    responses: {
      200: {
        timestamp: "1795834427669",
        status: 200,
        success: true,
        message: "Card added successfully",
        data: {
          cardId: "eb830c67-600b-4ccc-b608-a451407342f7",
          cardholderName: "Ada Okafor",
          brand: "MASTERCARD",
          last4: "4444",
          maskedNumber: "5555 5555 **** 4444",
          expiryMonth: 12,
          expiryYear: 2030,
          createdAt: "2026-11-28T02:53:47Z"
        }
      }
    }
  },
  "cards.list": {
    responses: {
      200: {
        timestamp: "1795834427672",
        status: 200,
        success: true,
        message: "Cards fetched",
        data: [
          {
            cardId: "eb830c67-600b-4ccc-b608-a451407342f7",
            cardholderName: "Ada Okafor",
            brand: "MASTERCARD",
            last4: "4444",
            maskedNumber: "5555 5555 **** 4444",
            expiryMonth: 12,
            expiryYear: 2030,
            createdAt: "2026-11-28T02:53:47Z"
          }
        ]
      }
    }
  },
  "cards.remove": {
    responses: {
      200: { timestamp: "1795834427679", status: 200, success: true, message: "Card deleted", data: null }
    }
  },
  "devices.remove": {
    responses: {
      200: { timestamp: "1795834427682", status: 200, success: true, message: "Device removed", data: null }
    }
  },
  // The worked example of docs/ledger-seals.md: a first seal over one transaction, its hash recomputed there.
  "ledgerSeals.list": {
    responses: {
      200: {
        timestamp: "1795834427701",
        status: 200,
        success: true,
        message: "Ledger seals fetched",
        data: {
          items: [
            {
              sequence: 1,
              hash: "63bc806ee1df8477957a629d3d7362f3a8101810baf9b76baedc91ce4312bb5b",
              previousHash: "0000000000000000000000000000000000000000000000000000000000000000",
              transactions: 1,
              sealedAt: "2026-11-28T02:53:52.512Z"
            }
          ],
          nextCursor: null
        }
      }
    }
  },
  "ledgerSeals.latest": {
    responses: {
      200: {
        timestamp: "1795834427704",
        status: 200,
        success: true,
        message: "Latest ledger seal fetched",
        data: {
          sequence: 1,
          hash: "63bc806ee1df8477957a629d3d7362f3a8101810baf9b76baedc91ce4312bb5b",
          previousHash: "0000000000000000000000000000000000000000000000000000000000000000",
          transactions: 1,
          sealedAt: "2026-11-28T02:53:52.512Z"
        }
      }
    }
  },
  "notifications.list": {
    responses: {
      200: {
        timestamp: "1795834427685",
        status: 200,
        success: true,
        message: "Notifications fetched",
        data: [
          {
            id: "94c5e63a-33ea-4390-9d6f-1944a806dae0",
            eventKey: "46228e7b-273e-4aaf-9321-2fa34203b278",
            userId: "user-1",
            deviceId: "aec4d65c-e280-4461-9c1a-9ef6121dba76",
            templateCode: "SPIN_PRIZE_WON",
            title: "You won a prize",
            body: "You won 10 coins on Spin and Win",
            status: "pending",
            attempts: 0,
            nextAttemptAt: "2026-11-28T02:53:47.643Z",
            lastError: null,
            providerMessageId: null,
            createdAt: "2026-11-28T02:53:47.643Z",
            updatedAt: "2026-11-28T02:53:47.643Z",
            resends: 0,
            inDoubt: false,
            unconfirmed: false,
            deliveries: []
          },
          {
            id: "41f9a631-c9b1-4049-9e70-adec5908b339",
            eventKey: "virtualaccount.credit:VA-20261121-0001",
            userId: "user-1",
            deviceId: "aec4d65c-e280-4461-9c1a-9ef6121dba76",
            templateCode: "DEPOSIT_RECEIVED",
            title: "Money received",
            body: "You received ₦4,950.50 from ADA OKAFOR",
            status: "sent",
            attempts: 1,
            nextAttemptAt: "2026-11-28T02:53:47.529Z",
            lastError: null,
            providerMessageId: "projects/wallet-app/messages/0:1795834427612345",
            createdAt: "2026-11-28T02:53:47.529Z",
            updatedAt: "2026-11-28T02:53:47.761Z",
            resends: 0,
            inDoubt: false,
            unconfirmed: false,
            deliveries: [
              {
                at: "2026-11-28T02:53:47.758Z",
                deviceId: "aec4d65c-e280-4461-9c1a-9ef6121dba76",
                provider: "FCM",
                success: true,
                errorCode: null,
                errorMessage: null,
                providerMessageId: "projects/wallet-app/messages/0:1795834427612345",
                collapseKey: "41f9a631-c9b1-4049-9e70-adec5908b339",
                resend: false
              }
            ]
          }
        ]
      }
    }
  },
  "notifications.retry": {
    responses: {
      200: {
        timestamp: "1795834427689",
        status: 200,
        success: true,
        message: "Notification not retryable",
        data: { id: "94c5e63a-33ea-4390-9d6f-1944a806dae0", retried: false, status: "pending" }
      }
    }
  },
  "notifications.retryByStatus": {
    request: { status: "failed" },
    responses: {
      200: {
        timestamp: "1795834427692",
        status: 200,
        success: true,
        message: "Queued 0 failed notifications again",
        data: []
      }
    }
  },
  "reconciliations.import": {
    request:
      "reference,kind,amount,fee,settled_amount,currency,account_number,settled_at\nVA-20261121-0001,virtualaccount.credit,5000.75,50.25,4950.50,NGN,9900112233,2026-11-21T18:30:12Z\nVA-20261121-0002,virtualaccount.credit,2000.00,20.00,1980.00,NGN,9900112233,2026-11-21T19:02:45Z\n",
    responses: {
      201: {
        timestamp: "1795846562160",
        status: 201,
        success: true,
        message: "Reconciliation imported",
        data: {
          id: "36359400-409d-492e-970f-d649e2ee3c20",
          date: "2026-11-21",
          importedAt: "2026-11-28T06:16:02.125Z",
          sha256: "498feb23fe92f7d82751c38550b85650db88e56917c0c5072fb5af3c130ed699",
          lines: 2,
          matched: 1,
          breaks: {
            open: 1,
            resolved: 0,
            byKind: {
              missing_in_ledger: 1,
              missing_in_report: 0,
              amount_mismatch: 0,
              status_mismatch: 0
            }
          }
        }
      },
      200: {
        timestamp: "1795846562170",
        status: 200,
        success: true,
        message: "Reconciliation already imported",
        data: {
          id: "36359400-409d-492e-970f-d649e2ee3c20",
          date: "2026-11-21",
          importedAt: "2026-11-28T06:16:02.125Z",
          sha256: "498feb23fe92f7d82751c38550b85650db88e56917c0c5072fb5af3c130ed699",
          lines: 2,
          matched: 1,
          breaks: {
            open: 1,
            resolved: 0,
            byKind: {
              missing_in_ledger: 1,
              missing_in_report: 0,
              amount_mismatch: 0,
              status_mismatch: 0
            }
          }
        }
      }
    }
  },
  "reconciliations.list": {
    responses: {
      200: {
        timestamp: "1795846562180",
        status: 200,
        success: true,
        message: "Reconciliations fetched",
        data: {
          items: [
            {
              id: "36359400-409d-492e-970f-d649e2ee3c20",
              date: "2026-11-21",
              importedAt: "2026-11-28T06:16:02.125Z",
              sha256: "498feb23fe92f7d82751c38550b85650db88e56917c0c5072fb5af3c130ed699",
              lines: 2,
              matched: 1,
              breaks: {
                open: 1,
                resolved: 0,
                byKind: {
                  missing_in_ledger: 1,
                  missing_in_report: 0,
                  amount_mismatch: 0,
                  status_mismatch: 0
                }
              }
            }
          ],
          nextCursor: null
        }
      }
    }
  },
  "reconciliations.get": {
    responses: {
      200: {
        timestamp: "1795846562190",
        status: 200,
        success: true,
        message: "Reconciliation fetched",
        data: {
          id: "36359400-409d-492e-970f-d649e2ee3c20",
          date: "2026-11-21",
          importedAt: "2026-11-28T06:16:02.125Z",
          sha256: "498feb23fe92f7d82751c38550b85650db88e56917c0c5072fb5af3c130ed699",
          lines: 2,
          matched: 1,
          breaks: {
            open: 1,
            resolved: 0,
            byKind: {
              missing_in_ledger: 1,
              missing_in_report: 0,
              amount_mismatch: 0,
              status_mismatch: 0
            }
          }
        }
      }
    }
  },
  "reconciliations.breaks": {
    responses: {
      200: {
        timestamp: "1795846562199",
        status: 200,
        success: true,
        message: "Breaks fetched",
        data: {
          items: [
            {
              id: "9c013b3f-4bc5-4050-8113-b14177b9c4bd",
              kind: "missing_in_ledger",
              reference: "VA-20261121-0002",
              eventKind: "virtualaccount.credit",
              status: "open",
              report: {
                line: 3,
                amount: "2000.00",
                fee: "20.00",
                settledAmount: "1980.00",
                currency: "NGN",
                accountNumber: "9900112233",
                settledAt: "2026-11-21T19:02:45.000Z"
              },
              ledger: null,
              resolution: null
            }
          ],
          nextCursor: null
        }
      }
    }
  },
  "reconciliations.resolve": {
    request: {
      action: "credit",
      note: "Deposit lost in the provider's outage of 21 Nov; credited from the settlement report"
    },
    responses: {
      200: {
        timestamp: "1795846562217",
        status: 200,
        success: true,
        message: "Break resolved (credit)",
        data: {
          id: "9c013b3f-4bc5-4050-8113-b14177b9c4bd",
          kind: "missing_in_ledger",
          reference: "VA-20261121-0002",
          eventKind: "virtualaccount.credit",
          status: "resolved",
          report: {
            line: 3,
            amount: "2000.00",
            fee: "20.00",
            settledAmount: "1980.00",
            currency: "NGN",
            accountNumber: "9900112233",
            settledAt: "2026-11-21T19:02:45.000Z"
          },
          ledger: null,
          resolution: {
            action: "credit",
            note: "Deposit lost in the provider's outage of 21 Nov; credited from the settlement report",
            resolvedAt: "2026-11-28T06:16:02.213Z",
            resolvedBy: "ops-ada",
            transactionId: "virtualaccount.credit:VA-20261121-0002"
          }
        }
      }
    }
  }
}
